import { Op, QueryTypes, type Transaction } from 'sequelize';

import { recordId } from '../../lib/ids';
import type { ChangeEvent } from '../../models/change-event';
import type { Family } from '../../models/family';
import type { WebhookEndpoint } from '../../models/webhook-endpoint';
import type { WebhooksContext } from './context';
import { heldBack } from './family-gate';
import { eventPayload } from './payload';

/*
 * Fan-out: change_events → one queued delivery per (event, matching active endpoint).
 * A cursor remembers the last event handled. Event ids are handed out when a transaction
 * writes, not when it commits, so on PostgreSQL a slower transaction can commit an
 * event below the cursor after later ones were handled: each hole in the ids seen is
 * remembered and looked at again until it fills or has stayed empty long enough to be
 * a rolled-back write. Deliveries are unique per (endpoint, event), so handling an
 * event twice queues nothing twice.
 */

const stateName = 'webhook_fanout';
const batchSize = 500;
// A write transaction open longer than this is not expected; a hole older than this was rolled back.
const holeSettleMs = 5 * 60 * 1000;
// Bounds the state row should a mass rollback leave many holes.
const maxHoles = 10_000;
// Any constant of this service's own: only one instance fans out at a time.
const postgresLockId = 7_246_734;

interface FanOutState {
    cursor: number;
    /** [event id, first seen missing (ms)]. */
    holes: [number, number][];
}

async function initialState(context: WebhooksContext, transaction: Transaction): Promise<FanOutState> {

    // Endpoints take only events after their creation: nothing older needs looking at.
    const oldestEndpoint = await context.models.WebhookEndpoint.min<number, WebhookEndpoint>('created_after_event_id', { transaction });
    const newestEvent = await context.models.ChangeEvent.max<number, ChangeEvent>('id', { transaction });
    return { cursor: Number(oldestEndpoint ?? newestEvent ?? 0), holes: [] };
}

async function readState(context: WebhooksContext, transaction: Transaction): Promise<FanOutState> {

    const row = await context.models.ServiceSetting.findByPk(stateName, { transaction });
    return row ? JSON.parse(row.value) as FanOutState : initialState(context, transaction);
}

/** Whether the family's changes of `resource` flow out: deliveries not held back (family-gate.ts), the resource exposed. */
function familyDelivers(context: WebhooksContext, family: Family | undefined, resource: string): boolean {

    return Boolean(family && !heldBack(context.policyStore.current(), family) && family.api_resources.includes(resource));
}

/** The delivery rows for `events`. */
async function deliveriesFor(context: WebhooksContext, events: ChangeEvent[], transaction: Transaction) {

    const familyIds = [...new Set(events.map((event) => event.family_long_id))];
    const [families, endpoints] = await Promise.all([
        context.models.Family.findAll({ where: { family_long_id: familyIds }, transaction }),
        context.models.WebhookEndpoint.findAll({ where: { family_long_id: familyIds, active: true }, transaction })
    ]);

    const familyById = new Map(families.map((family) => [family.family_long_id, family]));
    const now = new Date();
    const firstWait = context.policyStore.current().webhooks.retries.schedule_seconds[0] * 1000;
    return events.flatMap((event) => {

        if (!familyDelivers(context, familyById.get(event.family_long_id), event.resource)) {
            return [];
        }

        const payload = eventPayload(event);
        return endpoints
            .filter((endpoint) => endpoint.family_long_id === event.family_long_id && endpoint.resources.includes(event.resource) && event.id > endpoint.created_after_event_id)
            .map((endpoint) => ({
                id: recordId('whd'),
                endpoint_id: endpoint.id,
                family_long_id: event.family_long_id,
                event_id: event.id,
                event_type: payload.type,
                payload: payload.body,
                status: 'pending' as const,
                next_attempt_at: new Date(now.getTime() + firstWait)
            }));
    });
}

/** Where the cursor and the holes go once `events` (newer than the cursor) and `filled` (found in holes) are handled. */
function nextState(state: FanOutState, events: ChangeEvent[], filled: ChangeEvent[], now: number): FanOutState {

    const filledIds = new Set(filled.map((event) => event.id));
    const holes = state.holes.filter(([id, seen]) => !filledIds.has(id) && now - seen < holeSettleMs);
    let expected = state.cursor + 1;
    for (const event of events) {
        for (; expected < event.id; expected++) {
            holes.push([expected, now]);
        }

        expected = event.id + 1;
    }

    return { cursor: Math.max(state.cursor, expected - 1), holes: holes.slice(-maxHoles) };
}

/**
 * Queues the deliveries of the next batch of change events. Resolves with whether more
 * events may be waiting (a full batch). On PostgreSQL one instance fans out at a time;
 * another that finds the lock taken skips its turn.
 */
export function fanOut(context: WebhooksContext): Promise<boolean> {

    return context.transaction(async (transaction) => {

        if (context.sequelize.getDialect() === 'postgres') {
            const [{ locked }] = await context.sequelize.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(:id) AS locked', { replacements: { id: postgresLockId }, type: QueryTypes.SELECT, transaction });
            if (!locked) {
                return false;
            }
        }

        const state = await readState(context, transaction);
        const { ChangeEvent } = context.models;
        const events = await ChangeEvent.findAll({ where: { id: { [Op.gt]: state.cursor } }, order: [['id', 'ASC']], limit: batchSize, transaction });
        const filled = state.holes.length === 0 ? [] : await ChangeEvent.findAll({ where: { id: state.holes.map(([id]) => id) }, transaction });

        const rows = await deliveriesFor(context, [...filled, ...events], transaction);
        if (rows.length > 0) {
            await context.models.WebhookDelivery.bulkCreate(rows, { ignoreDuplicates: true, transaction });
        }

        const next = JSON.stringify(nextState(state, events, filled, Date.now()));
        // The sweep looks every second: an idle pass writes nothing.
        if (next !== JSON.stringify(state)) {
            await context.models.ServiceSetting.upsert({ name: stateName, value: next }, { transaction });
        }

        return events.length === batchSize;
    });
}

/**
 * The cursor: every change event at or below it that is committed has been fanned out.
 * An event still missing below it (a hole) can only be one a transaction is writing right
 * now, so it is recent and no clean-up by age can reach it.
 */
export async function fannedOutThrough(context: WebhooksContext): Promise<number> {

    const row = await context.models.ServiceSetting.findByPk(stateName);
    return row ? (JSON.parse(row.value) as FanOutState).cursor : 0;
}
