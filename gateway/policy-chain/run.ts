import type { RouteGroup } from '../policies/types';
import type { PolicyContext } from './context';
import { gatewayPolicies } from './index';

/** Runs a route group's policy chain in order; the first policy that refuses throws. `except`: policies left out. */
export async function runPolicyChain(group: RouteGroup, context: Omit<PolicyContext, 'config'>, except: ReadonlySet<string> = new Set()): Promise<void> {

    for (const policy of group.policies) {
        if (policy.enabled && !except.has(policy.name)) {
            await gatewayPolicies[policy.name]({ ...context, config: policy.config });
        }
    }
}
