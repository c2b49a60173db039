import Https from 'https';

import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';

import { withBodyChecks } from '../../lib/request-bodies';
import { withCsrfCheck } from '../../lib/csrf';
import { boundServices, type WebhooksApi } from './api';
import type { Transport, WebhooksContext, WebhooksOptions } from './context';
import { systemResolver } from './resolver';
import { webhookRoutes } from './routes';
import { webhookTasks } from './tasks';
import { DeliveryWorker } from './worker';

export type { WebhooksApi, WebhooksOptions };

/** What `server.plugins.webhooks` holds. */
export interface WebhooksPluginApi extends WebhooksApi {
    /**
     * For tests only: trusts a test CA and resolves names with a script, so deliveries
     * can reach a receiver on loopback (with a policy that allows it). Never used by the service.
     */
    useTestTransport(options: { ca?: string; resolve?: Transport['resolve'] }): void;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        webhooks: WebhooksPluginApi;
    }
}

const optionsSchema = Joi.object({
    secretKey: Joi.binary().length(32).required()
}).unknown();

function keptAliveAgent(ca?: string): Https.Agent {

    // One connection pool for every endpoint: keep-alive saves a TLS handshake per delivery.
    return new Https.Agent({ keepAlive: true, maxSockets: 50, scheduling: 'lifo', ...(ca ? { ca } : {}) });
}

/**
 * Signed webhooks: endpoint management (services and JSON routes for family managers),
 * the durable delivery queue fed from change_events, the delivery worker, and its
 * periodic tasks. The worker runs only while the server runs (not in the CLI).
 */
export const webhooksPlugin: Plugin<WebhooksOptions> = {
    name: 'webhooks',
    // The `site-session` strategy and CSRF protection of the JSON routes.
    dependencies: ['site'],
    register(server, options) {

        Joi.assert(options, optionsSchema, 'webhooks plugin options');
        const context: WebhooksContext = { ...options, transport: { resolve: systemResolver, agent: keptAliveAgent() } };
        const worker = new DeliveryWorker(context);
        const tasks = webhookTasks(context, worker);

        server.expose({
            ...boundServices(context),
            useTestTransport({ ca, resolve }) {

                context.transport.agent.destroy();
                context.transport = { resolve: resolve ?? context.transport.resolve, agent: keptAliveAgent(ca) };
            }
        } satisfies WebhooksPluginApi);

        server.route(withBodyChecks(withCsrfCheck(webhookRoutes(context))));

        let unsubscribe: (() => void) | undefined;
        server.ext('onPostStart', async () => {

            const wake = () => worker.wake(true);
            unsubscribe = await options.changeBus.subscribe(wake, wake);
            worker.start();
            tasks.start();
        });
        server.ext('onPreStop', async () => {

            unsubscribe?.();
            tasks.stop();
            await worker.stop();
        });

        server.ext('onPostStop', () => context.transport.agent.destroy());
    }
};
