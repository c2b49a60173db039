import { Op } from 'sequelize';

import { cliActorId } from '../audit-log';
import { familyLongId } from '../ids';
import { ServiceError } from '../errors';
import { hasMoreCharactersThan } from '../text-length';
import { textLimits } from '../text-limits';
import type { Family, PlanName } from '../../models/family';
import { planNames } from '../../models/family';
import type { Models } from '../../models';
import type { AccountsContext } from './context';

export async function findFamily(context: AccountsContext, id: string): Promise<Family> {

    const family = await context.models.Family.findByPk(id);
    if (!family) {
        throw new ServiceError('not_found', `No family ${id}.`, 404);
    }

    return family;
}

export async function createFamily(context: AccountsContext, input: { name: string; plan: string }): Promise<Family> {

    const name = input.name.trim();
    if (!name || hasMoreCharactersThan(name, textLimits.familyName)) {
        throw new ServiceError('invalid_request', `A family name is 1 to ${textLimits.familyName} characters.`);
    }

    if (!planNames.includes(input.plan as PlanName)) {
        throw new ServiceError('invalid_request', `Unknown plan "${input.plan}": one of ${planNames.join(', ')}.`);
    }

    return context.models.Family.create({ family_long_id: familyLongId(), name, plan: input.plan as PlanName });
}

/** Which of the given names are not resources of the API. */
function unknownResources(context: AccountsContext, names: readonly string[]): string[] {

    return names.filter((name) => !context.policies().scopes.resources.includes(name));
}

/** Turns API access on with the resources the family exposes; the plan must allow it. */
export async function enableApi(context: AccountsContext, id: string, resources: readonly string[]): Promise<Family> {

    const family = await findFamily(context, id);
    const plan = context.policies().plans.get(family.plan);
    if (!plan?.api_access) {
        const upgrade = plan?.upgrade_to ? context.policies().plans.get(plan.upgrade_to)?.label : undefined;
        throw new ServiceError('plan_not_eligible', `The ${plan?.label ?? family.plan} plan does not include API access${upgrade ? `; upgrade to ${upgrade}` : ''}.`, 403);
    }

    const unknown = unknownResources(context, resources);
    if (resources.length === 0 || unknown.length > 0) {
        throw new ServiceError('invalid_request', `Resources must be some of ${context.policies().scopes.resources.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}.`);
    }

    await family.update({ api_enabled: true, api_resources: [...new Set(resources)] });
    await context.authEpoch.bump();
    return family;
}

export async function disableApi(context: AccountsContext, id: string): Promise<Family> {

    const family = await findFamily(context, id);
    await family.update({ api_enabled: false });
    await context.authEpoch.bump();
    return family;
}

export async function changePlan(context: AccountsContext, id: string, plan: string): Promise<Family> {

    if (!planNames.includes(plan as PlanName)) {
        throw new ServiceError('invalid_request', `Unknown plan "${plan}": one of ${planNames.join(', ')}.`);
    }

    const family = await findFamily(context, id);
    await family.update({ plan: plan as PlanName });
    await context.authEpoch.bump();
    return family;
}

/** A suspension's reason as stored: trimmed, given, and within the limit. */
function suspensionReason(reason: string): string {

    const trimmed = reason.trim();
    if (!trimmed) {
        throw new ServiceError('invalid_request', 'Give a reason for the suspension: family managers see it.');
    }

    if (hasMoreCharactersThan(trimmed, textLimits.suspensionReason)) {
        throw new ServiceError('invalid_request', `A suspension reason is at most ${textLimits.suspensionReason} characters.`);
    }

    return trimmed;
}

/**
 * Stops every key of the family at once, until unsuspended. A family suspended already keeps its suspension,
 * reason, author and time (`changed` false): lifting it, then suspending again, gives another reason.
 */
export async function suspendFamily(context: AccountsContext, id: string, reason: string, by: string): Promise<{ family: Family; changed: boolean }> {

    const why = suspensionReason(reason);
    const family = await findFamily(context, id);
    // One conditional UPDATE: of two suspensions at once, only the first is recorded, and the other reads it.
    const [updated] = await context.models.Family.update(
        { api_suspended_at: new Date(), api_suspension_reason: why, api_suspended_by: by },
        { where: { family_long_id: family.family_long_id, api_suspended_at: null } }
    );
    await family.reload();
    // Even when nothing changed: doing it again is how an operator finishes a change whose epoch move Redis missed.
    await context.authEpoch.bump();

    return { family, changed: updated > 0 };
}

/**
 * Stops the family's messaging at once, on the site and through the messaging API (its devices get
 * 403 messaging_suspended from their next request, on every instance), until restored; its family API is left as it is.
 * As suspendFamily(): a suspension in force stands, with its reason, author and time (`changed` false).
 */
export async function suspendFamilyMessaging(context: AccountsContext, id: string, reason: string, by: string): Promise<{ family: Family; changed: boolean }> {

    const why = suspensionReason(reason);
    const family = await findFamily(context, id);
    const [updated] = await context.models.Family.update(
        { messaging_suspended_at: new Date(), messaging_suspension_reason: why, messaging_suspended_by: by },
        { where: { family_long_id: family.family_long_id, messaging_suspended_at: null } }
    );
    await family.reload();
    // Even when nothing changed, as suspendFamily().
    await context.authEpoch.bump();

    return { family, changed: updated > 0 };
}

/** Lifts a suspension of the family's messaging; a family whose messaging is not suspended is left as it is (`changed` false). */
export async function restoreFamilyMessaging(context: AccountsContext, id: string): Promise<{ family: Family; changed: boolean }> {

    const family = await findFamily(context, id);
    const [updated] = await context.models.Family.update(
        { messaging_suspended_at: null, messaging_suspension_reason: null, messaging_suspended_by: null },
        { where: { family_long_id: family.family_long_id, messaging_suspended_at: { [Op.ne]: null } } }
    );
    await family.reload();
    await context.authEpoch.bump();

    return { family, changed: updated > 0 };
}

/** Who suspended a family, for people: an operator with the CLI, or the super-admin's email (the id stored, should the user be gone). */
export async function suspenderName(models: Models, by: string | null): Promise<string> {

    if (by === cliActorId) {
        return 'an operator (CLI)';
    }

    const user = by ? await models.User.findByPk(by) : null;
    return user?.email ?? by ?? 'nobody recorded';
}

/** Lifts a suspension; a family not suspended is left as it is (`changed` false). */
export async function unsuspendFamily(context: AccountsContext, id: string): Promise<{ family: Family; changed: boolean }> {

    const family = await findFamily(context, id);
    // Conditional, as suspendFamily(): of two at once, only one lifts the suspension.
    const [updated] = await context.models.Family.update(
        { api_suspended_at: null, api_suspension_reason: null, api_suspended_by: null },
        { where: { family_long_id: family.family_long_id, api_suspended_at: { [Op.ne]: null } } }
    );
    await family.reload();
    // Even when nothing changed: doing it again is how an operator finishes a change whose epoch move Redis missed.
    await context.authEpoch.bump();

    return { family, changed: updated > 0 };
}
