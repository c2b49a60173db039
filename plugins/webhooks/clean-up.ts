import { QueryTypes } from 'sequelize';

import type { WebhooksContext } from './context';
import { fannedOutThrough } from './fan-out';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Removes the delivery log past the webhooks policy's retention (with any delivery left
 * pending that long, such as those of an endpoint disabled for a month), and change
 * events past the stream's retention window, but never one not fanned out yet.
 */
export async function cleanUp(context: WebhooksContext): Promise<void> {

    const now = new Date();
    const policies = context.policyStore.current();
    const logCutoff = new Date(now.getTime() - policies.webhooks.retention.delivery_log_days * dayMs);
    const eventCutoff = new Date(now.getTime() - policies.stream.retention_days * dayMs);
    const through = await fannedOutThrough(context);

    const old = 'SELECT id FROM webhook_deliveries WHERE created_at < :logCutoff AND (locked_until IS NULL OR locked_until < :now)';
    await context.transaction(async (transaction) => {

        const query = (sql: string) => context.sequelize.query(sql, { replacements: { logCutoff, now, eventCutoff, through }, type: QueryTypes.DELETE, transaction });
        await query(`DELETE FROM webhook_attempts WHERE delivery_id IN (${old})`);
        await query(`DELETE FROM webhook_deliveries WHERE id IN (${old})`);
        await query('DELETE FROM change_events WHERE occurred_at < :eventCutoff AND id <= :through');
    });
}
