import type { RouteGroup } from '../policies/types';
import type { PolicyContext } from './context';
import { gatewayPolicies } from './index';

/**
 * Runs a route group's policy chain in order from `from`; the first policy that refuses throws.
 * `except`: policies left out. Synchronous until a policy must wait, so a request whose policies
 * all decide in memory costs no promise.
 */
export function runPolicyChain(group: RouteGroup, context: PolicyContext, except?: ReadonlySet<string>, from = 0): void | Promise<void> {

    const { policies } = group;
    for (let i = from; i < policies.length; ++i) {
        const policy = policies[i];
        if (policy.enabled && !except?.has(policy.name)) {
            const waiting = gatewayPolicies[policy.name](context, policy.config);
            if (waiting) {
                return waiting.then(() => runPolicyChain(group, context, except, i + 1));
            }
        }
    }
}
