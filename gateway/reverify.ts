import type { Request, Server } from '@hapi/hapi';

import type { ActiveGroup } from './active-groups';
import type { PolicyStore } from './policies/policy-store';
import { runPolicyChain } from './policy-chain/run';
import { principalOf, type Principal } from './principal';
import type { RateLimitStore } from './rate-limit/types';

export type Reverify = (request: Request) => Promise<Principal>;

/**
 * Checks a long-lived request (a stream) again, as if it had just arrived: its credential
 * authenticated afresh by its group's strategy (the key cache reloads from the database once
 * the auth epoch has moved), or by its scheme's own recheck (a device's grant, which outlives
 * the access token the stream was opened with), then its group's policy chain, without the
 * policies that count requests. Resolves with the current principal, or throws the
 * error a new request would get (`invalid_key`, `account_disabled`, `family_suspended`…).
 */
export function reverifier(server: Server, groups: () => ReadonlyMap<string, ActiveGroup>, policyStore: PolicyStore, rateLimits: RateLimitStore): Reverify {

    return async (request) => {

        const active = groups().get(request.auth.strategy ?? '');
        const route = request.route.settings.plugins?.gateway;
        if (!active || !route) {
            throw new Error(`${request.method.toUpperCase()} ${request.path} is not a request of a gateway route group`);
        }

        const principal = active.recheckCredential ?
            await active.recheckCredential(principalOf(request)) :
            (await server.auth.test(active.group.name, request)).credentials as unknown as Principal;
        await runPolicyChain(active.recheck, { request, principal, route, policies: policyStore.current(), rateLimits });
        return principal;
    };
}
