import { findFamily } from '../../../lib/accounts/families';
import type { SiteContext } from '../context';
import { familyKeys, keyRows } from '../key-rows';

/** Everything Manage > APIs & Connectors shows about one family. */
export async function apiOverview(context: SiteContext, familyLongId: string) {

    const family = await findFamily(context.accounts, familyLongId);
    const policies = context.policies();
    const plan = policies.plans.get(family.plan);
    const upgrade = plan?.upgrade_to ? policies.plans.get(plan.upgrade_to)?.label : undefined;
    const keys = await keyRows(context.models, policies.scopes, await familyKeys(context.models, familyLongId));

    return {
        family: {
            id: family.family_long_id,
            name: family.name,
            apiEnabled: family.api_enabled,
            suspended: Boolean(family.api_suspended_at),
            suspensionReason: family.api_suspension_reason
        },
        plan: { label: plan?.label ?? family.plan, apiAccess: Boolean(plan?.api_access) },
        upgrade,
        resources: policies.scopes.resources.map((name) => ({ name, checked: family.api_resources.includes(name) })),
        activeKeys: keys.filter((key) => !key.revokedAt),
        revokedKeys: keys.filter((key) => key.revokedAt)
    };
}
