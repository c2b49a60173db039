import { Op, type Transaction } from 'sequelize';

import type { AttemptOutcome } from './attempt';
import type { WebhooksContext } from './context';
import { nextAttemptAt, retryAfterSeconds } from './retry-schedule';

/** An endpoint the system disabled, to tell its family's managers about. */
export interface DisabledEndpoint {
    endpointId: string;
    familyLongId: string;
    reason: string;
}

/** `5 days`, `3 hours`, `90 seconds`: the largest unit that fits. */
function duration(seconds: number): string {

    const [unit, size] = ([['day', 86400], ['hour', 3600], ['minute', 60], ['second', 1]] as const).find(([, length]) => seconds >= length) ?? ['second', 1];
    const count = +(seconds / size).toFixed(1);
    return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** The delivery's new state after an attempt. Redeliveries and tests never schedule retries of their own. */
function deliveryChanges(context: WebhooksContext, outcome: AttemptOutcome, now: Date) {

    const { result, claimed, trigger } = outcome;
    const last = { last_status_code: result.statusCode, last_error: result.error, locked_until: null, lock_token: null };
    if (outcome.delivered) {
        return { ...last, status: 'delivered' as const, delivered_at: now, next_attempt_at: null };
    }

    if (trigger === 'ping') {
        return { ...last, status: 'failed' as const, next_attempt_at: null };
    }

    if (trigger === 'redeliver') {
        return last;
    }

    // The schedule counts the queue's own attempts: one made by hand takes none of its retries.
    const next = result.statusCode === 410 ? undefined :
        nextAttemptAt(claimed.attempts - claimed.manual_attempts, context.policyStore.current().webhooks.retries, now, retryAfterSeconds(result.retryAfter, now));
    return next ? { ...last, status: 'pending' as const, next_attempt_at: next } : { ...last, status: 'failed' as const, next_attempt_at: null };
}

/**
 * Keeps an endpoint's failure run (failing_since) from its outcomes of one batch, in the
 * order they started, and disables it after a 410 Gone or when every attempt has failed
 * for the policy's time. Returns what it disabled.
 */
async function updateEndpointHealth(context: WebhooksContext, outcomes: AttemptOutcome[], now: Date, transaction: Transaction): Promise<DisabledEndpoint | undefined> {

    const { WebhookEndpoint } = context.models;
    const { endpoint_id: id, family_long_id: familyLongId } = outcomes[0].claimed;
    const ordered = [...outcomes].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
    const lastSuccess = ordered.map((outcome) => outcome.delivered).lastIndexOf(true);
    const failures = ordered.slice(lastSuccess + 1);
    if (failures.length === 0) {
        await WebhookEndpoint.update({ failing_since: null }, { where: { id, failing_since: { [Op.ne]: null } }, transaction });
        return undefined;
    }

    // After a success in this batch the run starts again; otherwise it goes on from before.
    await WebhookEndpoint.update({ failing_since: failures[0].startedAt }, { where: { id, ...(lastSuccess < 0 ? { failing_since: null } : {}) }, transaction });
    const gone = failures.some((outcome) => outcome.result.statusCode === 410);
    const disableAfter = context.policyStore.current().webhooks.endpoints.disable_after_failing_seconds;
    const reason = gone ? 'The endpoint answered 410 Gone: it asked for no more deliveries.' : `Every delivery attempt failed for ${duration(disableAfter)}.`;
    const failingLongEnough = gone ? {} : { failing_since: { [Op.lte]: new Date(now.getTime() - disableAfter * 1000) } };

    const [disabled] = await WebhookEndpoint.update(
        { active: false, disabled_at: now, disabled_reason: reason, disabled_by: 'system' },
        { where: { id, active: true, ...failingLongEnough }, transaction }
    );

    return disabled > 0 ? { endpointId: id, familyLongId, reason } : undefined;
}

/**
 * Each delivery's new state, written only under the claim that made the attempt (a
 * worker whose lease ran out changes nothing): one UPDATE per group of deliveries of one
 * claim that end up alike, so a batch of successes costs one statement.
 */
async function updateDeliveries(context: WebhooksContext, outcomes: readonly AttemptOutcome[], now: Date, transaction: Transaction): Promise<void> {

    const groups = new Map<string, { changes: ReturnType<typeof deliveryChanges>; token: string; ids: string[] }>();
    for (const outcome of outcomes) {
        const changes = deliveryChanges(context, outcome, now);
        const key = `${outcome.claimed.lock_token} ${JSON.stringify(changes)}`;
        const group = groups.get(key) ?? { changes, token: outcome.claimed.lock_token, ids: [] };
        group.ids.push(outcome.claimed.id);
        groups.set(key, group);
    }

    for (const { changes, token, ids } of groups.values()) {
        await context.models.WebhookDelivery.update(changes, { where: { id: ids, lock_token: token }, transaction });
    }
}

/** The outcomes per endpoint. */
function byEndpoint(outcomes: readonly AttemptOutcome[]): AttemptOutcome[][] {

    const groups = new Map<string, AttemptOutcome[]>();
    for (const outcome of outcomes) {
        groups.set(outcome.claimed.endpoint_id, [...groups.get(outcome.claimed.endpoint_id) ?? [], outcome]);
    }

    return [...groups.values()];
}

/**
 * The outcomes whose delivery is still there, kept there until the transaction ends: an
 * endpoint removed while its delivery was under way took the delivery with it, and one
 * attempt row naming it would fail the whole batch (its foreign key), others' outcomes too.
 */
async function stillQueued(context: WebhooksContext, outcomes: readonly AttemptOutcome[], transaction: Transaction): Promise<AttemptOutcome[]> {

    const rows = await context.models.WebhookDelivery.findAll({
        attributes: ['id'],
        where: { id: outcomes.map((outcome) => outcome.claimed.id) },
        lock: transaction.LOCK.KEY_SHARE,
        transaction
    });

    const ids = new Set(rows.map((row) => row.id));
    return outcomes.filter((outcome) => ids.has(outcome.claimed.id));
}

/**
 * Writes attempts down in one transaction: the log rows, each delivery's new state and
 * the endpoints' health. An endpoint the system disables is logged and put in the
 * audit log, where its family's managers see it (there is no e-mail to send it by).
 */
export async function recordOutcomes(context: WebhooksContext, all: readonly AttemptOutcome[]): Promise<DisabledEndpoint[]> {

    if (all.length === 0) {
        return [];
    }

    const now = new Date();
    const { WebhookAttempt, AuditEvent } = context.models;
    const disabled = await context.transaction(async (transaction) => {

        const outcomes = await stillQueued(context, all, transaction);
        if (outcomes.length === 0) {
            return [];
        }

        await WebhookAttempt.bulkCreate(outcomes.map(({ claimed, trigger, startedAt, result, address }) => ({
            delivery_id: claimed.id,
            endpoint_id: claimed.endpoint_id,
            attempt: claimed.attempts,
            trigger,
            status_code: result.statusCode,
            latency_ms: result.latencyMs,
            error: result.error,
            response_excerpt: result.excerpt,
            address,
            started_at: startedAt
        })), { transaction });

        await updateDeliveries(context, outcomes, now, transaction);
        const disabledNow: DisabledEndpoint[] = [];
        for (const endpointOutcomes of byEndpoint(outcomes)) {
            const endpoint = await updateEndpointHealth(context, endpointOutcomes, now, transaction);
            if (endpoint) {
                disabledNow.push(endpoint);
                await AuditEvent.create({
                    occurred_at: now, actor_id: null, actor_email: null, action: 'webhook.disable',
                    family_long_id: endpoint.familyLongId, target: endpoint.endpointId, detail: `Disabled automatically. ${endpoint.reason}`,
                    ip: null, user_agent: null
                }, { transaction });
            }
        }

        return disabledNow;
    });

    for (const endpoint of disabled) {
        context.log(['webhooks', 'warn'], `disabled webhook endpoint ${endpoint.endpointId} of family ${endpoint.familyLongId}: ${endpoint.reason}`);
    }

    return disabled;
}
