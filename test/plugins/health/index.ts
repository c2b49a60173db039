import Hapi, { type Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { createClient } from 'redis';

import { openDatabase } from '../../../lib/database';
import { healthPlugin } from '../../../plugins/health';
import { testRedisUrl, testServer, testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`/healthz and /readyz on ${testVariant}`, () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('answers liveness without a key', async () => {

        const response = await server.inject('/healthz');
        expect(response.statusCode).to.equal(200);
        expect(JSON.parse(response.payload)).to.equal({ status: 'ok' });
    });

    it('answers readiness once the database (and Redis, when configured) answer', async () => {

        const response = await server.inject('/readyz');
        expect(response.statusCode).to.equal(200);
        expect(JSON.parse(response.payload)).to.equal({ status: 'ok', checks: { database: 'ok', ...server.app.services.redis ? { redis: 'ok' } : {} } });
    });
});

describe('/readyz when a dependency fails', () => {

    /** The health plugin alone, on a bare server, over the given dependencies. */
    async function healthServer(options: Parameters<typeof healthPlugin.register>[1]): Promise<Server> {

        const server = Hapi.server();
        await server.register({ plugin: healthPlugin, options });
        return server;
    }

    it('answers 503 naming the database when it cannot be queried, while liveness stays 200', async () => {

        const sequelize = openDatabase('sqlite::memory:');
        await sequelize.close();
        const server = await healthServer({ sequelize });
        const response = await server.inject('/readyz');
        expect(response.statusCode).to.equal(503);
        const body = JSON.parse(response.payload);
        expect(body.status).to.equal('unavailable');
        expect(String(body.checks.database)).to.startWith('failing: ');
        expect((await server.inject('/healthz')).statusCode).to.equal(200);
    });

    it('answers 503 naming Redis when its client is closed', { skip: !testRedisUrl }, async () => {

        const sequelize = openDatabase('sqlite::memory:');
        const redis = createClient({ url: testRedisUrl });
        await redis.connect();
        await redis.disconnect();
        const server = await healthServer({ sequelize, redis });
        const response = await server.inject('/readyz');
        expect(response.statusCode).to.equal(503);
        expect(JSON.parse(response.payload).checks).to.equal({ database: 'ok', redis: 'failing: The client is closed' });
        await sequelize.close();
    });
});
