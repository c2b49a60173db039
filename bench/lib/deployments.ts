import type { Server } from '@hapi/hapi';

import { scratchPostgres } from './postgres';
import { bareServer, benchDeployment } from './servers';

/** The service as `npm start` builds it, on one database. */
export interface DatabaseDeployment {
    database: 'sqlite' | 'postgresql';
    server: Server;
}

/**
 * Runs `work` with the bare hapi baseline and one deployment per database: the embedded SQLite default, and
 * PostgreSQL in a scratch database of its own when it answers on 127.0.0.1. Afterwards every server stops and
 * the scratch database is dropped, whatever `work` did.
 */
export async function withBareAndDeployments(work: (bare: Server, deployments: DatabaseDeployment[]) => Promise<void>): Promise<void> {

    const postgres = await scratchPostgres();
    if (!postgres) {
        process.stdout.write('PostgreSQL does not answer on 127.0.0.1: SQLite only.\n');
    }

    const servers: Server[] = [];
    try {
        const bare = await bareServer();
        servers.push(bare);
        const deployments: DatabaseDeployment[] = [];
        const databases: { database: DatabaseDeployment['database']; env: Record<string, string> }[] = [
            { database: 'sqlite', env: {} },
            ...postgres ? [{ database: 'postgresql' as const, env: { DATABASE_URL: postgres.url } }] : []
        ];
        for (const { database, env } of databases) {
            const server = await benchDeployment({ env });
            servers.push(server);
            deployments.push({ database, server });
        }

        await work(bare, deployments);
    }
    finally {
        for (const server of servers) {
            await server.stop();
        }

        await postgres?.drop();
    }
}
