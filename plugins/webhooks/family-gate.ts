import type { Policies } from '../../gateway/policies/policy-file';
import { ServiceError, type ErrorCode } from '../../lib/errors';
import type { Family } from '../../models/family';

/*
 * Whether a family's webhooks may send anything: its API on, not suspended, a plan with
 * webhooks. Fan-out and the manual attempts (a test event, a redelivery) ask heldBack();
 * the delivery queue's claim asks the same in SQL, familyDeliversSql, kept beside it.
 */

type HeldBackCode = Extract<ErrorCode, 'family_suspended' | 'plan_not_eligible' | 'api_not_enabled'>;

/** Why nothing of the family's may be delivered now, as the gateway's code for it; undefined when deliveries flow. */
export function heldBack(policies: Policies, family: Family): HeldBackCode | undefined {

    if (family.api_suspended_at) {
        return 'family_suspended';
    }

    if (!policies.plans.get(family.plan)?.webhook_endpoints) {
        return 'plan_not_eligible';
    }

    return family.api_enabled ? undefined : 'api_not_enabled';
}

const explanations: Readonly<Record<HeldBackCode, string>> = {
    family_suspended: 'The family\'s API is suspended: its webhooks send nothing, tests and redeliveries included, until a super-admin lifts the suspension.',
    plan_not_eligible: 'The family\'s plan does not include webhooks: nothing is sent, tests and redeliveries included.',
    api_not_enabled: 'The family\'s API access is off: its webhooks send nothing, tests and redeliveries included, until a manager turns it on.'
};

/** Throws the 403 a manual attempt gets while the family's deliveries are held back. */
export function assertDeliveriesFlow(policies: Policies, family: Family): void {

    const code = heldBack(policies, family);
    if (code) {
        throw new ServiceError(code, explanations[code], 403);
    }
}

/** The plans whose families may have webhooks: the `:plans` of familyDeliversSql. */
export function plansWithWebhooks(policies: Policies): string[] {

    return [...policies.plans].filter(([, plan]) => plan.webhook_endpoints).map(([name]) => name);
}

/** heldBack() as an SQL condition on `families f`, with `:active` bound to true and `:plans` to plansWithWebhooks(). */
export const familyDeliversSql = 'f.api_enabled = :active AND f.api_suspended_at IS NULL AND f.plan IN (:plans)';
