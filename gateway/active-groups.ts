import type { Recheck, Verify } from './auth-scheme';
import type { GatewayConfig, GatewayParts, RouteGroup } from './policies/gateway-file';
import { chainOf, type ChainLink } from './policy-chain/run';

/** What the gateway runs for one route group under the gateway.yaml in force. */
export interface ActiveGroup {
    group: RouteGroup;
    verify: Verify;
    /** Its scheme's own check of an open request's credential, if it has one (reverify.ts). */
    recheckCredential?: Recheck;
    /** Its enabled policies, in order. */
    chain: ChainLink[];
    /** The chain without the policies that count requests: checking an admitted request again (reverify.ts). */
    recheck: ChainLink[];
}

/** Each route group's verifier and chains, by group name; made again when gateway.yaml is reloaded. */
export function activeGroups(config: GatewayConfig, parts: GatewayParts): Map<string, ActiveGroup> {

    return new Map(config.routeGroups.map((group) => [group.name, {
        group,
        verify: parts.authSchemes[group.auth.scheme].verifier(group.auth.config),
        recheckCredential: parts.authSchemes[group.auth.scheme].rechecker?.(group.auth.config),
        chain: chainOf(group, parts.policies),
        recheck: chainOf(group, parts.policies, (policy) => policy.countsRequests === true)
    }]));
}
