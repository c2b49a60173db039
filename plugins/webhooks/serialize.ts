import type { WebhookAttempt } from '../../models/webhook-attempt';
import type { WebhookDelivery } from '../../models/webhook-delivery';
import type { WebhookEndpoint } from '../../models/webhook-endpoint';
import type { AttemptOutcome } from './attempt';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** An endpoint as managers see it: never its secret, only the secret's last four characters. */
export function endpointJson(endpoint: WebhookEndpoint) {

    return {
        id: endpoint.id,
        url: endpoint.url,
        description: endpoint.description ?? null,
        resources: endpoint.resources,
        active: endpoint.active,
        disabled_at: iso(endpoint.disabled_at),
        disabled_reason: endpoint.disabled_reason ?? null,
        secret_hint: `whsec_…${endpoint.secret_last_four}`,
        previous_secret_expires_at: endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > new Date() ? iso(endpoint.previous_secret_expires_at) : null,
        failing_since: iso(endpoint.failing_since),
        created_at: iso(endpoint.created_at),
        updated_at: iso(endpoint.updated_at)
    };
}

export function deliveryJson(delivery: WebhookDelivery) {

    return {
        id: delivery.id,
        event_id: delivery.event_id,
        event_type: delivery.event_type,
        status: delivery.status,
        attempts: delivery.attempts,
        manual_attempts: delivery.manual_attempts,
        next_attempt_at: delivery.status === 'pending' ? iso(delivery.next_attempt_at) : null,
        last_status_code: delivery.last_status_code ?? null,
        last_error: delivery.last_error ?? null,
        delivered_at: iso(delivery.delivered_at),
        created_at: iso(delivery.created_at)
    };
}

export function attemptJson(attempt: WebhookAttempt) {

    return {
        attempt: attempt.attempt,
        trigger: attempt.trigger,
        status_code: attempt.status_code,
        latency_ms: attempt.latency_ms,
        error: attempt.error,
        response_excerpt: attempt.response_excerpt,
        address: attempt.address,
        started_at: iso(attempt.started_at)
    };
}

/** The attempt a redelivery or test delivery just made, as its caller is told. */
export function outcomeJson(outcome: AttemptOutcome) {

    return {
        delivered: outcome.delivered,
        status_code: outcome.result.statusCode,
        latency_ms: outcome.result.latencyMs,
        error: outcome.result.error,
        response_excerpt: outcome.result.excerpt,
        address: outcome.address
    };
}
