import { removeEndpointAudited } from './audited-removal';
import type { WebhooksContext } from './context';
import { getDelivery, listDeliveries, ping, redeliver } from './deliveries';
import { createEndpoint, disableEndpoint, enableEndpoint, findEndpoint, listEndpoints, removeEndpoint, rotateSecret, updateEndpoint } from './endpoints';

type Bound<F> = F extends (context: WebhooksContext, ...args: infer A) => infer R ? (...args: A) => R : never;

const services = { createEndpoint, listEndpoints, findEndpoint, updateEndpoint, rotateSecret, disableEndpoint, enableEndpoint,
    removeEndpoint, removeEndpointAudited, listDeliveries, getDelivery, redeliver, ping };

/**
 * The webhook services bound to this deployment: what `server.plugins.webhooks` holds for
 * the hosted-site pages and the CLI, so nothing duplicates their rules. Each acts on the
 * family it is given (a page passes the signed-in manager's own); refusals are
 * ServiceErrors with a stable code, as the account services'.
 */
export type WebhooksApi = { [Name in keyof typeof services]: Bound<typeof services[Name]> };

export function boundServices(context: WebhooksContext): WebhooksApi {

    return Object.fromEntries(Object.entries(services).map(([name, service]) => [name,
        (...args: unknown[]) => (service as (...all: unknown[]) => unknown)(context, ...args)])) as WebhooksApi;
}
