import { apiError } from '../../lib/errors';
import type { GatewayPolicy } from './context';

/** The plan must include API access (plans.yaml), and a manager must have enabled it. */
export const planGate: GatewayPolicy = ({ credentials, policies }) => {

    const plan = policies.plans.get(credentials.family.plan);
    if (!plan?.api_access) {
        const upgrade = plan?.upgrade_to ? policies.plans.get(plan.upgrade_to) : undefined;
        throw apiError(403, 'plan_not_eligible', `The ${plan?.label ?? credentials.family.plan} plan does not include API access${upgrade ? `; the ${upgrade.label} plan does` : ''}.`);
    }

    if (!credentials.family.apiEnabled) {
        throw apiError(403, 'api_not_enabled', 'API access is not enabled for this family; a family manager can enable it under Manage > APIs & Connectors.');
    }
};
