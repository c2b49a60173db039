import type { RouteGroup } from '../policies/gateway-file';
import type { GatewayPolicy, PolicyContext } from './context';

/** One enabled policy of a route group's chain, with its validated config. */
export interface ChainLink {
    name: string;
    policy: GatewayPolicy;
    config: object;
}

/** The enabled policies of a group's chain, in order; `except` leaves out those it matches. */
export function chainOf(group: RouteGroup, policies: Readonly<Record<string, GatewayPolicy>>, except: (policy: GatewayPolicy) => boolean = () => false): ChainLink[] {

    return group.policies
        .filter((ref) => ref.enabled && !except(policies[ref.name]))
        .map((ref) => ({ name: ref.name, policy: policies[ref.name], config: ref.config }));
}

/**
 * Runs a policy chain in order from `from`; the first policy that refuses throws. Synchronous until
 * a policy must wait, so a request whose policies all decide in memory costs no promise.
 */
export function runPolicyChain(chain: readonly ChainLink[], context: PolicyContext, from = 0): void | Promise<void> {

    for (let i = from; i < chain.length; ++i) {
        const waiting = chain[i].policy.check(context, chain[i].config);
        if (waiting) {
            return waiting.then(() => runPolicyChain(chain, context, i + 1));
        }
    }
}
