import Http from 'http';
import type { AddressInfo } from 'net';

import type { Registry } from 'prom-client';

import type { Log } from '../../lib/logger';

/**
 * The listener Prometheus scrapes: `GET /metrics` and nothing else, on an address of its own
 * (METRICS_HOST, loopback by default), apart from the service's port that nginx exposes.
 */
export class ScrapeListener {

    private readonly server: Http.Server;

    constructor(registry: Registry, log: Log) {

        this.server = Http.createServer((request, response) => {

            if (request.url?.split('?')[0] !== '/metrics' || !['GET', 'HEAD'].includes(request.method ?? '')) {
                response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics.\n');
                return;
            }

            registry.metrics().then(
                (text) => response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
                (error: Error) => {

                    log(['metrics', 'error'], `collecting metrics failed: ${error.stack ?? error.message}`);
                    response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Collecting the metrics failed: see the service\'s log.\n');
                }
            );
        });
    }

    listen(host: string, port: number): Promise<void> {

        return new Promise((resolve, reject) => {

            this.server.once('error', reject);
            this.server.listen(port, host, () => {

                this.server.removeListener('error', reject);
                resolve();
            });
        });
    }

    /** The port it listens on (the one the OS chose for METRICS_PORT=0); undefined when it does not listen. */
    get port(): number | undefined {

        return (this.server.address() as AddressInfo | null)?.port;
    }

    close(): Promise<void> {

        return new Promise((resolve) => {

            this.server.closeAllConnections();
            this.server.close(() => resolve());
        });
    }
}
