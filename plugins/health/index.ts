import type { Plugin } from '@hapi/hapi';
import type { Sequelize } from 'sequelize';

import type { RedisClient } from '../../lib/redis';

export interface HealthOptions {
    sequelize: Sequelize;
    redis?: RedisClient;
}

const probeTimeoutMilliseconds = 2000;

/** A dependency that does not answer in time is as unready as one that fails (a reconnecting client queues forever). */
async function check(probe: () => Promise<unknown>): Promise<string> {

    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((_, reject) => {

        timer = setTimeout(() => reject(new Error('no answer in time')), probeTimeoutMilliseconds);
    });

    try {
        await Promise.race([probe(), timeout]);
        return 'ok';
    }
    catch (error) {
        return `failing: ${(error as Error).message}`;
    }
    finally {
        clearTimeout(timer);
    }
}

/** `/healthz`: the process answers. `/readyz`: it can also reach its database (and Redis when configured). */
export const healthPlugin: Plugin<HealthOptions> = {
    name: 'health',
    register(server, options) {

        server.route({
            method: 'GET',
            path: '/healthz',
            options: { auth: false, description: 'Liveness' },
            handler: () => ({ status: 'ok' })
        });

        server.route({
            method: 'GET',
            path: '/readyz',
            options: { auth: false, description: 'Readiness: database, and Redis when configured' },
            async handler(_request, h) {

                const checks: Record<string, string> = { database: await check(() => options.sequelize.query('SELECT 1')) };
                if (options.redis) {
                    checks.redis = await check(() => options.redis!.ping());
                }

                const ready = Object.values(checks).every((status) => status === 'ok');
                return h.response({ status: ready ? 'ok' : 'unavailable', checks }).code(ready ? 200 : 503);
            }
        });
    }
};
