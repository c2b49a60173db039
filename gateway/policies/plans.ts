import Joi from 'joi';

import { planNames } from '../../models/family';
import { byName, loadedBefore, policyFile } from './policy-file';
import { listsEvery, listsEveryMessage, namedList, namesIn } from './schema-parts';

export interface PlanPolicy {
    name: string;
    label: string;
    api_access: boolean;
    /** The plan to suggest to a family whose plan has no API access. */
    upgrade_to?: string;
    /** Name of a preset in rate-limits.yaml. */
    rate_limit: string;
    /** The largest file one upload may carry; absent: the plan accepts no uploads. */
    max_upload_bytes?: number;
    /** The most the family's files may add up to (gallery and documents together). */
    storage_quota_bytes?: number;
    /** How many webhook endpoints a family may have; absent: none. */
    webhook_endpoints?: number;
}

declare module './policy-file' {
    interface Policies {
        /** plans.yaml, by plan name. */
        plans: Map<string, PlanPolicy>;
    }
}

/** Context of the plans schema: the presets of rate-limits.yaml, and the plans a family can be on (models/family.ts). */
type PlansContext = { rateLimitPresetNames: string[]; familyPlanNames: readonly string[] };

/** policies/plans.yaml: what each plan a family can be on offers. */
export const plansFile = policyFile({
    fileName: 'plans.yaml',
    key: 'plans',
    schema: Joi.object<{ plans: PlanPolicy[] }, true>({
        plans: namedList(Joi.object<PlanPolicy, true>({
            // A family's plan is one of the names models/family.ts knows: a plan of another name could never be used.
            name: Joi.string().required().valid(Joi.in('$familyPlanNames'))
                .messages({ 'any.only': '"{#value}" is not a plan a family can be on; those are {$familyPlanNames}' }),
            label: Joi.string().required(),
            api_access: Joi.boolean().required(),
            // Upgrading must actually give API access.
            upgrade_to: Joi.string().valid(Joi.in('/plans', { adjust: (plans) => namesIn(plans, (plan) => plan.api_access === true) }))
                .messages({ 'any.only': '"{#value}" is not a plan with api_access: true' }),
            rate_limit: Joi.string().required().valid(Joi.in('$rateLimitPresetNames'))
                .messages({ 'any.only': '"{#value}" is not a preset in rate-limits.yaml' }),
            // Both or neither: a plan without them accepts no uploads.
            max_upload_bytes: Joi.number().integer().min(0).max(Joi.ref('storage_quota_bytes'))
                .messages({ 'number.max': 'must not be more than storage_quota_bytes' }),
            storage_quota_bytes: Joi.number().integer().min(0),
            // Absent: the plan offers no webhooks.
            webhook_endpoints: Joi.number().integer().min(0)
        }).and('max_upload_bytes', 'storage_quota_bytes')).min(1).required()
            // Families are on these plans: a reload that dropped one would leave their keys without a plan.
            .custom(listsEvery('familyPlanNames', 'plan a family can be on')).messages(listsEveryMessage)
    }),
    context: (loaded): PlansContext => ({ rateLimitPresetNames: [...loadedBefore(loaded, 'rateLimits', 'plans.yaml').keys()], familyPlanNames: planNames }),
    toPolicy: (document) => byName(document.plans)
});
