import type { Server } from '@hapi/hapi';

import { configFromEnvironment } from '../config';
import { deployment } from '../deployment';
import { consoleLog } from '../logger';
import type { Services } from '../services';

/**
 * Runs a command's work against the deployment the environment describes, without
 * listening: same database, Redis and policies as the running servers, so what the
 * command changes (a revoked key, a suspension) reaches them on their next request.
 * The server is there for the services plugins expose (server.plugins.webhooks).
 */
export async function withServer<T>(work: (server: Server) => Promise<T>, { redisMayBeDown = false } = {}): Promise<T> {

    // A one-shot command needs no policy reloads; only errors are logged, on stderr. Its queries may take as long as
    // they need (deleting a large family, say): the operator at the terminal, not a client's patience, decides.
    const config = configFromEnvironment(process.env, { watchPolicies: false, databaseQueryTimeoutSeconds: 0 });
    const server = await deployment({ config, log: consoleLog(true, config.logFormat), redisMayBeDown });
    try {
        return await work(server);
    }
    finally {
        await server.stop();
    }
}

/** withServer() for work that needs only the shared services. */
export function withServices<T>(work: (services: Services) => Promise<T>, options: { redisMayBeDown?: boolean } = {}): Promise<T> {

    return withServer((server) => work(server.app.services), options);
}
