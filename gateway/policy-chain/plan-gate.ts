import { apiError } from '../../lib/errors';
import { withoutConfig } from './context';

/** The plan must include API access (plans.yaml), and a manager must have enabled it. */
export const planGate = withoutConfig(({ principal, policies }) => {

    const plan = policies.plans.get(principal.family.plan);
    if (!plan?.api_access) {
        const upgrade = plan?.upgrade_to ? policies.plans.get(plan.upgrade_to) : undefined;
        throw apiError(403, 'plan_not_eligible', `The ${plan?.label ?? principal.family.plan} plan does not include API access${upgrade ? `; the ${upgrade.label} plan does` : ''}.`);
    }

    if (!principal.family.apiEnabled) {
        throw apiError(403, 'api_not_enabled', 'API access is not enabled for this family; a family manager can enable it under Manage > APIs & Connectors.');
    }
});
