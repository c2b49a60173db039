import type { Transaction } from 'sequelize';

import { ServiceError } from '../../lib/errors';
import { recordId } from '../../lib/ids';
import { hasMoreCharactersThan } from '../../lib/text-length';
import { textLimits } from '../../lib/text-limits';
import type { Family } from '../../models/family';
import type { WebhookEndpoint } from '../../models/webhook-endpoint';
import type { WebhooksContext } from './context';
import { checkDestination, DestinationRefused } from './destination';
import { sealedNewSecret } from './endpoint-secrets';

export interface EndpointInput {
    url: string;
    description?: string | null;
    /** Resources whose changes are delivered: some of those the family's API exposes. */
    resources: readonly string[];
}

/** The endpoint and its new secret, shown this once. */
export interface EndpointWithSecret {
    endpoint: WebhookEndpoint;
    secret: string;
}

export async function findFamily(context: WebhooksContext, familyLongId: string, transaction?: Transaction): Promise<Family> {

    const family = await context.models.Family.findByPk(familyLongId, { transaction, lock: transaction?.LOCK.UPDATE });
    if (!family) {
        throw new ServiceError('not_found', `No family ${familyLongId}.`, 404);
    }

    return family;
}

/** The family's endpoint; another family's is as unknown as a missing one. */
export async function findEndpoint(context: WebhooksContext, familyLongId: string, id: string): Promise<WebhookEndpoint> {

    const endpoint = await context.models.WebhookEndpoint.findOne({ where: { id, family_long_id: familyLongId } });
    if (!endpoint) {
        throw new ServiceError('not_found', `No webhook endpoint ${id}.`, 404);
    }

    return endpoint;
}

/** How many endpoints the family's plan allows; refuses a plan without webhooks. */
function endpointLimit(context: WebhooksContext, family: Family): number {

    const plan = context.policyStore.current().plans.get(family.plan);
    if (!plan?.webhook_endpoints) {
        throw new ServiceError('plan_not_eligible', `The ${plan?.label ?? family.plan} plan does not include webhooks.`, 403);
    }

    return plan.webhook_endpoints;
}

function assertResources(family: Family, resources: readonly string[]): void {

    if (!family.api_enabled) {
        throw new ServiceError('api_not_enabled', 'Turn the family\'s API on first: webhooks deliver changes of the resources it exposes.', 403);
    }

    const outside = resources.filter((name) => !family.api_resources.includes(name));
    if (resources.length === 0 || outside.length > 0 || new Set(resources).size !== resources.length) {
        throw new ServiceError('invalid_request', `resources: some of ${family.api_resources.join(', ')}, each once${outside.length ? ` (not exposed: ${outside.join(', ')})` : ''}.`);
    }
}

function cleanDescription(description: string | null | undefined): string | null {

    const trimmed = description?.trim() ?? '';
    if (hasMoreCharactersThan(trimmed, textLimits.webhookDescription)) {
        throw new ServiceError('invalid_request', `description: at most ${textLimits.webhookDescription} characters.`);
    }

    return trimmed || null;
}

/**
 * The destination check of a URL being saved, as a ServiceError naming the problem; the URL in its WHATWG
 * serialisation (`HTTPS://Example.COM:443/a/../b` is `https://example.com/b`), which is what is checked and kept.
 */
async function assertDestination(context: WebhooksContext, url: string): Promise<string> {

    try {
        return (await checkDestination(url, context.policyStore.current().webhooks.destinations, context.transport.resolve)).url.href;
    }
    catch (error) {
        if (error instanceof DestinationRefused) {
            throw new ServiceError('invalid_request', `url: ${error.message}`);
        }

        throw error;
    }
}

async function newestEventId(context: WebhooksContext, transaction: Transaction): Promise<number> {

    return Number(await context.models.ChangeEvent.max('id', { transaction }) ?? 0);
}

/** A new endpoint, checked like every delivery will be; its secret is returned this once. */
export async function createEndpoint(context: WebhooksContext, familyLongId: string, input: EndpointInput, createdBy: string): Promise<EndpointWithSecret> {

    const description = cleanDescription(input.description);
    assertResources(await findFamily(context, familyLongId), input.resources);
    // Resolving takes network time: before the transaction, not while holding the family's row.
    const url = await assertDestination(context, input.url);

    return context.transaction(async (transaction) => {

        const family = await findFamily(context, familyLongId, transaction);
        const limit = endpointLimit(context, family);
        assertResources(family, input.resources);
        if (await context.models.WebhookEndpoint.count({ where: { family_long_id: familyLongId }, transaction }) >= limit) {
            throw new ServiceError('quota_exceeded', `The ${context.policyStore.current().plans.get(family.plan)!.label} plan allows ${limit} webhook endpoints; remove one first.`, 403);
        }

        const id = recordId('whe');
        const { secret, columns } = sealedNewSecret(context, id);
        const endpoint = await context.models.WebhookEndpoint.create({
            id,
            family_long_id: familyLongId,
            url,
            description,
            resources: [...input.resources],
            ...columns,
            created_after_event_id: await newestEventId(context, transaction),
            created_by: createdBy
        }, { transaction });

        return { endpoint, secret };
    });
}

export function listEndpoints(context: WebhooksContext, familyLongId: string): Promise<WebhookEndpoint[]> {

    return context.models.WebhookEndpoint.findAll({ where: { family_long_id: familyLongId }, order: [['created_at', 'ASC'], ['id', 'ASC']] });
}

/** Changes the URL (checked again), description or resources. */
export async function updateEndpoint(context: WebhooksContext, familyLongId: string, id: string, changes: Partial<EndpointInput>): Promise<WebhookEndpoint> {

    const endpoint = await findEndpoint(context, familyLongId, id);
    if (changes.resources !== undefined) {
        assertResources(await findFamily(context, familyLongId), changes.resources);
    }

    const url = changes.url !== undefined && changes.url !== endpoint.url ? await assertDestination(context, changes.url) : undefined;
    return endpoint.update({
        ...(url !== undefined ? { url } : {}),
        ...(changes.description !== undefined ? { description: cleanDescription(changes.description) } : {}),
        ...(changes.resources !== undefined ? { resources: [...changes.resources] } : {})
    });
}

/**
 * A new secret, returned this once. The previous one keeps signing too for the policy's
 * overlap, so receivers can switch without losing a delivery; a second rotation within
 * the overlap ends the oldest secret's at once.
 */
export async function rotateSecret(context: WebhooksContext, familyLongId: string, id: string): Promise<EndpointWithSecret> {

    const endpoint = await findEndpoint(context, familyLongId, id);
    const overlapSeconds = context.policyStore.current().webhooks.endpoints.secret_rotation_overlap_seconds;
    const { secret, columns } = sealedNewSecret(context, endpoint.id);
    await endpoint.update({
        ...columns,
        previous_secret_encrypted: endpoint.secret_encrypted,
        previous_secret_expires_at: new Date(Date.now() + overlapSeconds * 1000)
    });

    return { endpoint, secret };
}

/** Stops deliveries: nothing new is queued; pending deliveries wait until it is enabled again. */
export async function disableEndpoint(context: WebhooksContext, familyLongId: string, id: string, by: string, reason = 'Disabled by a family manager.'): Promise<WebhookEndpoint> {

    if (hasMoreCharactersThan(reason, textLimits.webhookDisableReason)) {
        throw new ServiceError('invalid_request', `reason: at most ${textLimits.webhookDisableReason} characters.`);
    }

    const endpoint = await findEndpoint(context, familyLongId, id);
    return endpoint.update({ active: false, disabled_at: new Date(), disabled_reason: reason, disabled_by: by });
}

/** Resumes deliveries (pending ones first), after checking the destination again. */
export async function enableEndpoint(context: WebhooksContext, familyLongId: string, id: string): Promise<WebhookEndpoint> {

    const endpoint = await findEndpoint(context, familyLongId, id);
    await assertDestination(context, endpoint.url);
    return endpoint.update({ active: true, disabled_at: null, disabled_reason: null, disabled_by: null, failing_since: null });
}

/**
 * Removes the endpoint with its deliveries and their log. `alongside` (the audit entry of who
 * removed it) commits with the removal, so a request that finds the endpoint gone finds that
 * entry too. Removed meanwhile by another request, it is not found, and `alongside` does not run.
 */
export async function removeEndpoint(context: WebhooksContext, familyLongId: string, id: string,
    alongside?: (endpoint: WebhookEndpoint, transaction: Transaction) => Promise<void>): Promise<WebhookEndpoint> {

    const endpoint = await findEndpoint(context, familyLongId, id);
    await context.transaction(async (transaction) => {

        const { WebhookAttempt, WebhookDelivery } = context.models;
        await WebhookAttempt.destroy({ where: { endpoint_id: id }, transaction });
        await WebhookDelivery.destroy({ where: { endpoint_id: id }, transaction });
        if (await context.models.WebhookEndpoint.destroy({ where: { id }, transaction }) === 0) {
            throw new ServiceError('not_found', `No webhook endpoint ${id}.`, 404);
        }

        await alongside?.(endpoint, transaction);
    });

    return endpoint;
}
