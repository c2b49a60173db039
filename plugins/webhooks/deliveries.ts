import { Op } from 'sequelize';

import { isApiTimestamp } from '../../lib/api-timestamp';
import { inOneSnapshot } from '../../lib/database';
import { ServiceError } from '../../lib/errors';
import { randomBase62, recordId, recordIdPattern } from '../../lib/ids';
import type { WebhookAttempt } from '../../models/webhook-attempt';
import type { WebhookDelivery } from '../../models/webhook-delivery';
import { attemptDelivery, type AttemptOutcome } from './attempt';
import { claimOne } from './claim';
import type { WebhooksContext } from './context';
import { findEndpoint, findFamily } from './endpoints';
import { assertDeliveriesFlow } from './family-gate';
import { pingPayload } from './payload';
import { recordOutcomes } from './record';

export interface DeliveryPage {
    deliveries: WebhookDelivery[];
    /** Pass as `cursor` for the next (older) page; null on the last. */
    nextCursor: string | null;
}

const defaultPageSize = 25;

function encodeCursor(delivery: WebhookDelivery): string {

    return Buffer.from(JSON.stringify([delivery.created_at.toISOString(), delivery.id])).toString('base64url');
}

const deliveryIdPattern = recordIdPattern('whd');

/** Exactly what encodeCursor wrote: anything else could reach the query as a date or id the database refuses (a 500). */
function decodeCursor(cursor: string): [Date, string] {

    try {
        const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, string];
        if (typeof id === 'string' && deliveryIdPattern.test(id) && isApiTimestamp(at)) {
            return [new Date(at), id];
        }
    }
    catch {
        // falls through to the error below
    }

    throw new ServiceError('invalid_request', 'cursor: not a cursor this list gave.');
}

/** An endpoint's deliveries, newest first. */
export async function listDeliveries(context: WebhooksContext, familyLongId: string, endpointId: string, options: { limit?: number; cursor?: string } = {}): Promise<DeliveryPage> {

    await findEndpoint(context, familyLongId, endpointId);
    const limit = options.limit ?? defaultPageSize;
    const after = options.cursor ? decodeCursor(options.cursor) : undefined;
    const deliveries = await context.models.WebhookDelivery.findAll({
        where: {
            endpoint_id: endpointId,
            ...(after ? { [Op.or]: [{ created_at: { [Op.lt]: after[0] } }, { created_at: after[0], id: { [Op.lt]: after[1] } }] } : {})
        },
        order: [['created_at', 'DESC'], ['id', 'DESC']],
        limit: limit + 1
    });

    const more = deliveries.length > limit;
    const page = deliveries.slice(0, limit);
    return { deliveries: page, nextCursor: more ? encodeCursor(page[page.length - 1]) : null };
}

/** One delivery of the endpoint with every attempt, oldest first. */
export async function getDelivery(context: WebhooksContext, familyLongId: string, endpointId: string,
    deliveryId: string): Promise<{ delivery: WebhookDelivery; attempts: WebhookAttempt[] }> {

    await findEndpoint(context, familyLongId, endpointId);
    // An attempt's log row and its delivery's new state commit together: read apart, a delivery could show an attempt its state does not count yet.
    return inOneSnapshot(context.sequelize, context.transaction, async (transaction) => {

        const delivery = await context.models.WebhookDelivery.findOne({ where: { id: deliveryId, endpoint_id: endpointId }, transaction });
        if (!delivery) {
            throw new ServiceError('not_found', `No delivery ${deliveryId} of webhook endpoint ${endpointId}.`, 404);
        }

        const attempts = await context.models.WebhookAttempt.findAll({ where: { delivery_id: deliveryId }, order: [['id', 'ASC']], transaction });
        return { delivery, attempts };
    });
}

/** The outcome of an attempt made while the caller waits, and the delivery as it now stands. */
export interface ImmediateAttempt {
    outcome: AttemptOutcome;
    delivery: WebhookDelivery;
}

/** The endpoint of a manual attempt, which goes out only while the family's deliveries flow (family-gate.ts). */
async function endpointToAttempt(context: WebhooksContext, familyLongId: string, endpointId: string) {

    const endpoint = await findEndpoint(context, familyLongId, endpointId);
    assertDeliveriesFlow(context.policyStore.current(), await findFamily(context, familyLongId));
    return endpoint;
}

/** The delivery as an attempt left it; gone when its endpoint was removed while the attempt was under way. */
async function deliveryAfterAttempt(context: WebhooksContext, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {

    const delivery = await context.models.WebhookDelivery.findByPk(deliveryId);
    if (!delivery) {
        throw new ServiceError('not_found', `No webhook endpoint ${endpointId}: it was removed while the attempt was under way.`, 404);
    }

    return delivery;
}

/**
 * Sends one delivery again now, with the same delivery id, and reports how it went. It
 * changes the delivery's status only when it succeeds (no retry follows then); it schedules
 * no retries of its own, and, counted as made by hand, takes none of the queue's.
 */
export async function redeliver(context: WebhooksContext, familyLongId: string, endpointId: string, deliveryId: string): Promise<ImmediateAttempt> {

    const endpoint = await endpointToAttempt(context, familyLongId, endpointId);
    await getDelivery(context, familyLongId, endpointId, deliveryId);
    const claimed = await claimOne(context, endpointId, deliveryId);
    if (!claimed) {
        throw new ServiceError('conflict', `Delivery ${deliveryId} is being attempted right now; look at its log in a moment.`, 409);
    }

    const outcome = await attemptDelivery(context, claimed, endpoint, 'redeliver');
    await recordOutcomes(context, [outcome]);
    return { outcome, delivery: await deliveryAfterAttempt(context, endpointId, deliveryId) };
}

/**
 * A test delivery (`ping` event) sent now, whether the endpoint is active or not (but not
 * while the family's deliveries are held back), and its outcome; it is logged with the
 * endpoint's deliveries and never retried.
 */
export async function ping(context: WebhooksContext, familyLongId: string, endpointId: string): Promise<ImmediateAttempt> {

    const endpoint = await endpointToAttempt(context, familyLongId, endpointId);
    const payload = pingPayload(familyLongId, endpoint.id, new Date());
    const delivery = await context.models.WebhookDelivery.create({
        id: recordId('whd'),
        endpoint_id: endpoint.id,
        family_long_id: familyLongId,
        event_id: null,
        event_type: payload.type,
        payload: payload.body,
        status: 'pending',
        attempts: 1,
        manual_attempts: 1,
        // Held by this call from the start: the queue never takes it (and it is not due anyway).
        lock_token: randomBase62(16)
    });

    const claimed = { ...delivery.get({ plain: true }), lock_token: delivery.lock_token! };
    const outcome = await attemptDelivery(context, claimed, endpoint, 'ping');
    await recordOutcomes(context, [outcome]);
    return { outcome, delivery: await deliveryAfterAttempt(context, endpoint.id, delivery.id) };
}
