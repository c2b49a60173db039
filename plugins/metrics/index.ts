import type { Plugin } from '@hapi/hapi';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

import type { Log } from '../../lib/logger';
import type { RedisOutage } from '../../lib/redis-outage';
import type { Models } from '../../models';
import { observeRequests } from './http-metrics';
import { ScrapeListener } from './scrape-listener';
import { webhookGauges } from './webhook-gauges';

export interface MetricsOptions {
    host: string;
    port: number;
    models: Models;
    log: Log;
    /** With Redis: its gauge says whether the instance is going on without it. */
    redisOutage?: RedisOutage;
}

/** What the metrics plugin offers (`server.plugins.metrics`): for tests. */
export interface MetricsApi {
    /** The port Prometheus scrapes, once the server has started (undefined before, and after it stops). */
    port(): number | undefined;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        metrics: MetricsApi;
    }
}

/**
 * Prometheus metrics (METRICS_PORT; off by default, at no cost then): the process's own (CPU,
 * memory, event loop lag, garbage collection), the requests' durations by route and status, the
 * open change streams, the webhooks' deliveries waiting and endpoints failing, and with Redis whether it is failing. A registry of
 * its own, not prom-client's global one. Served on a listener of its own once the server starts,
 * so the CLI, which only initialises a server, never opens it.
 */
export const metricsPlugin: Plugin<MetricsOptions> = {
    name: 'metrics',
    dependencies: ['stream'],
    register(server, options) {

        const registry = new Registry();
        collectDefaultMetrics({ register: registry });
        observeRequests(server, registry);

        new Gauge({
            name: 'family_records_change_streams_open',
            help: 'Change streams (SSE) this instance holds open.',
            registers: [registry],
            collect() {

                this.set(server.plugins.stream.openStreams());
            }
        });

        webhookGauges(registry, options.models);
        const { redisOutage } = options;
        if (redisOutage) {
            new Gauge({
                name: 'family_records_redis_failing',
                help: '1 while Redis does not answer this instance, which then goes on without it (keys checked against the database, rate limits counted in its memory).',
                registers: [registry],
                collect() {

                    this.set(redisOutage.failing ? 1 : 0);
                }
            });
        }

        const listener = new ScrapeListener(registry, options.log);
        server.ext('onPostStart', () => listener.listen(options.host, options.port));
        server.ext('onPreStop', () => listener.close());
        server.expose({ port: () => listener.port } satisfies MetricsApi);
    }
};
