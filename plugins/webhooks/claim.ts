import { QueryTypes } from 'sequelize';

import { randomBase62 } from '../../lib/ids';
import type { WebhooksContext } from './context';
import { familyDeliversSql, plansWithWebhooks } from './family-gate';

/** A delivery a worker holds: what an attempt needs, and the token its result is written under. */
export interface ClaimedDelivery {
    id: string;
    endpoint_id: string;
    family_long_id: string;
    event_type: string;
    payload: string;
    /** Attempts including this one. */
    attempts: number;
    /** Of those, the ones made by hand (a redelivery, a test event): the retry schedule counts only the others. */
    manual_attempts: number;
    lock_token: string;
}

const columns = 'id, endpoint_id, family_long_id, event_type, payload, attempts, manual_attempts, lock_token';

// Due, not held by a live claim, of an active endpoint, of a family whose changes flow out
// (family-gate.ts: a retry queued before a suspension waits for its end, as fan-out queues
// nothing meanwhile); oldest due first.
const due = `
    SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN families f ON f.family_long_id = d.family_long_id
    WHERE d.status = 'pending' AND d.next_attempt_at <= :now AND (d.locked_until IS NULL OR d.locked_until < :now) AND e.active = :active
        AND ${familyDeliversSql}
    ORDER BY d.next_attempt_at LIMIT :limit`;

/*
 * PostgreSQL: several instances claim at once; SKIP LOCKED lets each pass over rows
 * another is claiming instead of waiting for them, and the lease (locked_until) keeps
 * them off the row after that claim commits, until the attempt is recorded or the lease
 * runs out (a crashed worker's deliveries come back).
 * SQLite has one writer at a time: the same statement, serialised by the transaction.
 */
const claimSql = {
    postgres: `UPDATE webhook_deliveries SET locked_until = :leaseEnd, lock_token = :token, attempts = attempts + 1, updated_at = :now
        WHERE id IN (${due} FOR UPDATE OF d SKIP LOCKED) RETURNING ${columns}`,
    sqlite: `UPDATE webhook_deliveries SET locked_until = :leaseEnd, lock_token = :token, attempts = attempts + 1, updated_at = :now
        WHERE id IN (${due}) RETURNING ${columns}`
};

/** Claims up to `limit` due deliveries for one attempt each, under a lease of the policy's length. */
export async function claimDue(context: WebhooksContext, limit: number): Promise<ClaimedDelivery[]> {

    const plans = plansWithWebhooks(context.policyStore.current());
    if (plans.length === 0) {
        return [];
    }

    const now = new Date();
    const leaseEnd = new Date(now.getTime() + context.policyStore.current().webhooks.delivery.lease_seconds * 1000);
    const sql = context.sequelize.getDialect() === 'postgres' ? claimSql.postgres : claimSql.sqlite;
    return context.transaction((transaction) => context.sequelize.query<ClaimedDelivery>(sql, {
        replacements: { now, leaseEnd, token: randomBase62(16), limit, active: true, plans },
        type: QueryTypes.SELECT,
        transaction
    }));
}

/**
 * Claims one delivery of an endpoint for an attempt out of turn (a manager's redelivery),
 * whatever its status, counted as made by hand; undefined when a worker holds it right now.
 */
export async function claimOne(context: WebhooksContext, endpointId: string, deliveryId: string): Promise<ClaimedDelivery | undefined> {

    const now = new Date();
    const leaseEnd = new Date(now.getTime() + context.policyStore.current().webhooks.delivery.lease_seconds * 1000);
    const [claimed] = await context.transaction((transaction) => context.sequelize.query<ClaimedDelivery>(
        `UPDATE webhook_deliveries SET locked_until = :leaseEnd, lock_token = :token, attempts = attempts + 1, manual_attempts = manual_attempts + 1, updated_at = :now
         WHERE id = :deliveryId AND endpoint_id = :endpointId AND (locked_until IS NULL OR locked_until < :now) RETURNING ${columns}`,
        { replacements: { now, leaseEnd, token: randomBase62(16), deliveryId, endpointId }, type: QueryTypes.SELECT, transaction }
    ));

    return claimed;
}
