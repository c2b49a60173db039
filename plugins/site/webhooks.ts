import type { Request } from '@hapi/hapi';
import Boom from '@hapi/boom';
import { Op } from 'sequelize';

import type { Models } from '../../models';
import type { WebhookDelivery } from '../../models/webhook-delivery';
import type { WebhookEndpoint } from '../../models/webhook-endpoint';
import type { WebhooksApi } from '../webhooks';

/*
 * The pages call the webhooks plugin's services (`server.plugins.webhooks`), never
 * their own copy of its rules; this file only shapes what they return for the templates.
 */

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

/** How the page words the outcome of a test event or redelivery sent while the user waited. */
export function attemptResult(outcome: { delivered: boolean; result: { statusCode?: number | null; latencyMs?: number; error?: string | null } }) {

    return {
        delivered: outcome.delivered,
        statusCode: outcome.result.statusCode ?? null,
        latencyMs: outcome.result.latencyMs,
        error: outcome.result.error ?? null
    };
}
