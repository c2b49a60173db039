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

    const next = result.statusCode === 410 ? undefined :
        nextAttemptAt(claimed.attempts, context.policyStore.current().webhooks.retries, now, retryAfterSeconds(result.retryAfter, now));
    return next ? { ...last, status: 'pending' as const, next_attempt_at: next } : { ...last, status: 'failed' as const, next_attempt_at: null };
}

/**
 * Keeps the endpoint's failure run (failing_since) and disables it after a 410 Gone or
 * when every attempt has failed for the policy's time. Returns what it disabled.
 */
async function updateEndpointHealth(context: WebhooksContext, outcome: AttemptOutcome, now: Date, transaction: Transaction): Promise<DisabledEndpoint | undefined> {

    const { WebhookEndpoint } = context.models;
    const id = outcome.claimed.endpoint_id;
    if (outcome.delivered) {
        await WebhookEndpoint.update({ failing_since: null }, { where: { id, failing_since: { [Op.ne]: null } }, transaction });
        return undefined;
    }

    await WebhookEndpoint.update({ failing_since: outcome.startedAt }, { where: { id, failing_since: null }, transaction });
    const disableAfter = context.policyStore.current().webhooks.endpoints.disable_after_failing_seconds;
    const reason = outcome.result.statusCode === 410 ?
        'The endpoint answered 410 Gone: it asked for no more deliveries.' :
        `Every delivery attempt failed for ${duration(disableAfter)}.`;
    const failingLongEnough = outcome.result.statusCode === 410 ? {} : { failing_since: { [Op.lte]: new Date(now.getTime() - disableAfter * 1000) } };

    const [disabled] = await WebhookEndpoint.update(
        { active: false, disabled_at: now, disabled_reason: reason, disabled_by: 'system' },
        { where: { id, active: true, ...failingLongEnough }, transaction }
    );

    return disabled > 0 ? { endpointId: id, familyLongId: outcome.claimed.family_long_id, reason } : undefined;
}

/**
 * Writes attempts down in one transaction: the log rows, each delivery's new state (only
 * under the claim that made the attempt: a worker whose lease ran out changes nothing)
 * and the endpoints' health. An endpoint the system disables is logged and put in the
 * audit log, where its family's managers see it (there is no e-mail to send it by).
 */
export async function recordOutcomes(context: WebhooksContext, outcomes: readonly AttemptOutcome[]): Promise<DisabledEndpoint[]> {

    if (outcomes.length === 0) {
        return [];
    }

    const now = new Date();
    const { WebhookAttempt, WebhookDelivery, AuditEvent } = context.models;
    const disabled = await context.transaction(async (transaction) => {

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

        const disabledNow: DisabledEndpoint[] = [];
        for (const outcome of outcomes) {
            await WebhookDelivery.update(deliveryChanges(context, outcome, now), { where: { id: outcome.claimed.id, lock_token: outcome.claimed.lock_token }, transaction });
            const endpoint = await updateEndpointHealth(context, outcome, now, transaction);
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
