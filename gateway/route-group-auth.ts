import type { Request, ResponseToolkit, ServerAuthScheme } from '@hapi/hapi';

import type { ActiveGroup } from './active-groups';
import type { PolicyStore } from './policies/policy-store';
import { runPolicyChain } from './policy-chain/run';
import type { Principal } from './principal';
import type { RateLimitStore } from './rate-limit/types';

/** The hapi auth scheme of every route group: the group's strategy names it. */
export const routeGroupSchemeName = 'gateway-route-group';

export interface RouteGroupAuthOptions {
    /** The group as the gateway.yaml in force has it. */
    active: () => ActiveGroup;
    policyStore: PolicyStore;
    rateLimits: RateLimitStore;
}

/**
 * Authenticates a route group's request with the verifier of the group's auth scheme, then admits the principal
 * through the group's policy chain.
 *
 * Admission runs here, inside authentication, because hapi reads and parses a request's body right after this
 * step: a request the policies refuse (scope, suspension, rate limit) is answered before its body is read, and
 * one with a bad body still counts against the rate limit. A refused request keeps its credentials, for the
 * usage meter and the logs. A request authenticated already is being checked again (reverify.ts, through
 * server.auth.test()): reverify runs the chain itself, without the policies that count requests.
 */
export const routeGroupScheme: ServerAuthScheme<RouteGroupAuthOptions> = (_server, strategyOptions) => {

    const options = strategyOptions!;
    const admit = (request: Request, h: ResponseToolkit, active: ActiveGroup, principal: Principal) => {

        const admitted = () => h.authenticated({ credentials: principal as never });
        const route = request.route.settings.plugins?.gateway;
        if (!route || request.auth.isAuthenticated) {
            return admitted();
        }

        const refused = (error: Error) => h.unauthenticated(error, { credentials: principal as never });
        let waiting: void | Promise<void>;
        try {
            waiting = runPolicyChain(active.chain, { request, principal, route, policies: options.policyStore.current(), rateLimits: options.rateLimits });
        }
        catch (error) {
            return refused(error as Error);
        }

        return waiting ? waiting.then(admitted, refused) : admitted();
    };

    return {
        // Synchronous while the verifier and the policies decide without waiting: a request through the gateway awaits nothing.
        authenticate(request: Request, h: ResponseToolkit) {

            const active = options.active();
            const verified = active.verify(request);
            return verified instanceof Promise ? verified.then((principal) => admit(request, h, active, principal)) : admit(request, h, active, verified);
        }
    };
};
