import { Gauge, type Registry } from 'prom-client';
import { Op, type WhereOptions } from 'sequelize';

import type { Models } from '../../models';

/**
 * The webhooks' state, read from the database at each scrape: the same figures from every
 * instance, since the queue and the endpoints are shared. Enough to alert on receivers that fail:
 * deliveries on retry, endpoints in a failure run, endpoints the service gave up on.
 */
export function webhookGauges(registry: Registry, models: Models): void {

    const countOf = (help: string, name: string, count: () => Promise<number>) => new Gauge({
        name, help, registers: [registry],
        async collect() {

            this.set(await count());
        }
    });

    const deliveries = (where: WhereOptions) => {

        return () => models.WebhookDelivery.count({ where });
    };

    const endpoints = (where: WhereOptions) => {

        return () => models.WebhookEndpoint.count({ where });
    };

    countOf('Webhook deliveries queued or waiting for a retry.', 'family_records_webhook_deliveries_pending', deliveries({ status: 'pending' }));
    countOf('Of those, the ones already tried at least once: their receivers failed.', 'family_records_webhook_deliveries_retrying', deliveries({ status: 'pending', attempts: { [Op.gt]: 0 } }));
    countOf('Active webhook endpoints whose last deliveries failed (a failure run under way).', 'family_records_webhook_endpoints_failing', endpoints({ active: true, failing_since: { [Op.ne]: null } }));
    countOf('Webhook endpoints the service disabled after failing for too long (policies/webhooks.yaml).', 'family_records_webhook_endpoints_disabled_by_service', endpoints({ active: false, disabled_by: 'system' }));
}
