import Hapi, { type Server } from '@hapi/hapi';

import { configFromEnvironment } from '../../lib/config';
import { deployment } from '../../lib/deployment';
import { consoleLog } from '../../lib/logger';
import { policiesWithoutLimits } from '../../test/helpers/policy-files';
import { scratchDirectory } from '../../test/helpers/server';

/** What every baseline and no-op route answers. */
export const noopBody = { ok: true };

/**
 * The baseline: hapi with nothing else, listening on 127.0.0.1. One route reads nothing; the other, for
 * benchmarks that write, parses a JSON body (hapi's default) and answers it back with 201.
 */
export async function bareServer(): Promise<Server> {

    const server = Hapi.server({ port: 0, host: '127.0.0.1' });
    server.route({ method: 'GET', path: '/bare-noop', handler: () => noopBody });
    server.route({
        method: 'POST',
        path: '/bare-echo',
        handler: (request, h) => h.response(request.payload as object).code(201)
    });
    await server.start();
    return server;
}

/**
 * The whole service as `npm start` builds it (the embedded default unless `env` says otherwise),
 * listening on a free port of 127.0.0.1. `extraRoutes` are added after the deployment has initialised
 * (hapi allows that), so the start-up check of route groups does not see them: the caller checks
 * over HTTP that they sit behind the gateway.
 */
export async function benchDeployment(options: { env?: Record<string, string>; extraRoutes?: Hapi.ServerRoute[] } = {}): Promise<Server> {

    const config = configFromEnvironment({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: scratchDirectory(),
        POLICIES_DIR: policiesWithoutLimits(),
        WATCH_POLICIES: 'false',
        ...options.env
    });

    const server = await deployment({ config, log: consoleLog(true) });
    server.route(options.extraRoutes ?? []);
    await server.start();
    return server;
}
