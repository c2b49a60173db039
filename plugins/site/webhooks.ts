import type { PluginProperties, Request } from '@hapi/hapi';
import Boom from '@hapi/boom';
import { Op } from 'sequelize';

import type { Models } from '../../models';
import { isDelivered, type WebhookAttempt } from '../../models/webhook-attempt';
import type { WebhookDelivery } from '../../models/webhook-delivery';
import type { WebhookEndpoint } from '../../models/webhook-endpoint';

/*
 * The pages call the webhooks plugin's services (`server.plugins.webhooks`), never
 * their own copy of its rules; this file only shapes what they return for the templates.
 */

type WebhooksApi = PluginProperties['webhooks'];

/** The webhook services, registered after this plugin (they use its session strategy). */
export function webhookServices(request: Request): WebhooksApi {

    const api = request.server.plugins.webhooks as WebhooksApi | undefined;
    if (!api) {
        throw Boom.notFound('Webhooks are not available on this deployment.');
    }

    return api;
}

export function hasWebhooks(request: Request): boolean {

    return Boolean(request.server.plugins.webhooks);
}

export function endpointRow(endpoint: WebhookEndpoint) {

    return {
        id: endpoint.id,
        url: endpoint.url,
        description: endpoint.description,
        resources: endpoint.resources,
        active: endpoint.active,
        disabledReason: endpoint.disabled_reason,
        failingSince: endpoint.failing_since,
        secretHint: `whsec_…${endpoint.secret_last_four}`,
        createdAt: endpoint.created_at
    };
}

/** Recent deliveries with the latency of each one's latest attempt. */
export async function deliveryRows(models: Models, deliveries: readonly WebhookDelivery[]) {

    const attempts = await models.WebhookAttempt.findAll({ where: { delivery_id: { [Op.in]: deliveries.map((delivery) => delivery.id) } }, order: [['id', 'ASC']] });
    const latest = new Map(attempts.map((attempt) => [attempt.delivery_id, attempt]));
    return deliveries.map((delivery) => ({
        id: delivery.id,
        eventType: delivery.event_type,
        status: delivery.status,
        attempts: delivery.attempts,
        manualAttempts: delivery.manual_attempts,
        statusCode: delivery.last_status_code,
        error: delivery.last_error,
        latencyMs: latest.get(delivery.id)?.latency_ms,
        createdAt: delivery.created_at
    }));
}

/** A page's flash for an attempt made by hand (a test event, a redelivery): the attempt as the delivery log keeps it. */
function attemptResult(attempt: WebhookAttempt) {

    return { delivered: isDelivered(attempt.status_code), statusCode: attempt.status_code, latencyMs: attempt.latency_ms, error: attempt.error };
}

/**
 * The latest attempt of `trigger` at one of the family's deliveries, for the page a test event or
 * redelivery redirects to (`?test=<delivery id>`): the page shows the attempt's outcome from the log,
 * so reloading it sends nothing again. Undefined for a delivery of another family, or none.
 */
export async function manualAttempt(models: Models, familyLongId: string, deliveryId: string | undefined, trigger: 'ping' | 'redeliver') {

    const delivery = deliveryId === undefined ? null : await models.WebhookDelivery.findOne({ where: { id: deliveryId, family_long_id: familyLongId } });
    const attempt = delivery && await models.WebhookAttempt.findOne({ where: { delivery_id: delivery.id, trigger }, order: [['id', 'DESC']] });
    return attempt ? { endpointId: delivery!.endpoint_id, ...attemptResult(attempt) } : undefined;
}
