import type { Request, Server } from '@hapi/hapi';

import type { ApiKeyCredentials } from './credentials';
import type { PolicyStore } from './policies/policy-store';
import type { RouteGroup } from './policies/types';
import { runPolicyChain } from './policy-chain/run';
import type { RateLimitStore } from './rate-limit/types';

/** Policies that count requests: checking an admitted request again must not count it twice. */
const countingPolicies: ReadonlySet<string> = new Set(['rate-limit']);

export type Reverify = (request: Request) => Promise<ApiKeyCredentials>;

/**
 * Checks a long-lived request (the change stream) again, as if it had just arrived:
 * its key authenticated afresh by its group's strategy (the key cache reloads from the
 * database once the auth epoch has moved), then its group's policy chain, without the
 * policies that count requests. Resolves with the current credentials, or throws the
 * error a new request would get (`invalid_key`, `family_suspended`…).
 */
export function reverifier(server: Server, groups: ReadonlyMap<string, RouteGroup>, policyStore: PolicyStore, rateLimits: RateLimitStore): Reverify {

    return async (request) => {

        const group = groups.get(request.auth.strategy ?? '');
        const route = request.route.settings.plugins?.gateway;
        if (!group || !route) {
            throw new Error(`${request.method.toUpperCase()} ${request.path} is not a request of a gateway route group`);
        }

        const { credentials } = await server.auth.test(group.name, request);
        const current = credentials as unknown as ApiKeyCredentials;
        await runPolicyChain(group, { request, credentials: current, route, policies: policyStore.current(), rateLimits }, countingPolicies);
        return current;
    };
}
