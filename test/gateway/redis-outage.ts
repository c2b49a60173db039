import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import { createClient } from 'redis';

import { revokeApiKey } from '../../lib/accounts/api-keys';
import { suspendFamily } from '../../lib/accounts/families';
import { ServiceError } from '../../lib/errors';
import type { RedisClient } from '../../lib/redis';
import { signedIn } from '../plugins/site/client';
import { RawStream } from '../plugins/stream/client';
import { keptLog } from '../helpers/kept-log';
import { dayLongRateWindows, editedPolicies } from '../helpers/policy-files';
import { PrivateRedis, redisServerBinary } from '../helpers/private-redis';
import { familyWithKey, testServer, testVariant } from '../helpers/server';
import { timed } from '../helpers/timing';
import { expectRefusal, expectSuccess } from './requests';

export const lab = Lab.script();
const { describe, it, before, after, afterEach } = lab;

/** Until the server's Redis client has connected again after `redis` came back (node-redis retries up to every 3 s). */
async function reconnected(server: Server): Promise<void> {

    const deadline = Date.now() + 10_000;
    while (!server.app.services.redis!.isReady) {
        if (Date.now() > deadline) {
            throw new Error('the server did not reconnect to Redis within 10 s');
        }

        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

async function withRedisClient<T>(url: string, work: (client: RedisClient) => Promise<T>): Promise<T> {

    const client: RedisClient = createClient({ url });
    await client.connect();
    try {
        return await work(client);
    }
    finally {
        await client.quit();
    }
}

// A Redis of the test's own, so it can be stopped, started again empty, and paused, without touching anyone else's.
describe(`the gateway when its Redis fails (${testVariant} + a private Redis)`, { skip: !redisServerBinary }, () => {

    let redis: PrivateRedis;
    const servers: Server[] = [];
    // Every test here fails Redis on purpose: what its servers log of it is kept, not printed.
    const outageLog = keptLog([/^\[redis,error\] /, /^\[change-bus,error\] change events [\d, ]+ not announced: /]);

    async function serverOnRedis(options: { policiesDir?: string; env?: Record<string, string> } = {}): Promise<Server> {

        const server = await testServer({ ...options, log: outageLog.log, env: { REDIS_URL: redis.url, REDIS_PREFIX: 'outage-test:', ...options.env } });
        servers.push(server);
        return server;
    }

    before(async () => {

        redis = await PrivateRedis.start();
    });

    afterEach(async () => {

        redis.resume();
        await Promise.all(servers.splice(0).map((server) => server.stop()));
        await redis.stop();
        await redis.start();
        outageLog.lines.splice(0);
    });

    after(async () => {

        await redis.stop();
    });

    it('checks keys against the database while Redis is down, at once, and logs the outage once', async () => {

        const server = await serverOnRedis();
        const family = await familyWithKey(server);
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        await redis.stop();
        const result = await timed(async () => {

            for (let i = 0; i < 3; ++i) {
                expectSuccess(await family.inject('GET', '/api/v1/persons'));
            }

            expectSuccess(await family.inject('POST', '/api/v1/persons', { first_name: 'Written', last_name: 'Meanwhile' }), 201);
        });

        expect(result.ms).to.be.below(1000);            // refused by a closed connection, nothing waits for the deadline
        const outageLines = outageLog.lines.filter((line) => line.includes('Redis does not answer'));
        expect(outageLines).to.have.length(1);
        expect(outageLines[0]).to.include('every request\'s API key is checked against the database');
    });

    it('refuses a key revoked while Redis is down on the next request, and says the revocation could not be announced', async () => {

        const server = await serverOnRedis();
        const family = await familyWithKey(server);
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        await redis.stop();
        const error = await expect(revokeApiKey(server.app.services.accounts, family.keyId, 'test')).to.reject(ServiceError);
        expect(error).to.contain({ code: 'service_unavailable', statusCode: 503 });
        expect(error.message).to.startWith('The change is saved, but Redis did not answer');
        expect(error.message).to.include('Make the change again once Redis answers');
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 401, 'invalid_key');

        await redis.start();
        await reconnected(server);
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 401, 'invalid_key');

        // Done again once Redis answers, the revocation moves the epoch (a key revoked already changes nothing else).
        const again = await revokeApiKey(server.app.services.accounts, family.keyId, 'test');
        expect(again.changed).to.be.false();
        const other = await familyWithKey(server);
        expectSuccess(await other.inject('GET', '/api/v1/persons'));
    });

    it('loads again after an outage what it cached before: a change whose epoch move Redis lost is seen', async () => {

        const server = await serverOnRedis();
        const family = await familyWithKey(server);
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        // No request reaches the server during the outage, the suspension cannot move the epoch, and Redis comes back
        // holding the epoch it had (as one that keeps its data on disk would): only the reconnection tells.
        const epochKey = 'outage-test:auth:epoch';
        const epoch = await withRedisClient(redis.url, (client) => client.get(epochKey));
        await redis.stop();
        await expect(suspendFamily(server.app.services.accounts, family.familyLongId, 'Unusual traffic', 'test')).to.reject(ServiceError);
        await redis.start();
        await withRedisClient(redis.url, (client) => client.set(epochKey, epoch!));
        await reconnected(server);

        expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'family_suspended');
    });

    it('counts rate limits in the instance\'s memory while Redis is down, against the same limits', async () => {

        const policiesDir = dayLongRateWindows(editedPolicies('rate-limits.yaml', 'per_key:\n      limit: 600', 'per_key:\n      limit: 3'));
        const server = await serverOnRedis({ policiesDir });
        const family = await familyWithKey(server);

        await redis.stop();
        const remaining: string[] = [];
        for (let i = 0; i < 3; ++i) {
            const response = await family.inject('GET', '/api/v1/persons');
            expectSuccess(response);
            remaining.push(String(response.headers['ratelimit-remaining']));
        }

        expect(remaining).to.equal(['2', '1', '0']);
        const refused = await family.inject('GET', '/api/v1/persons');
        expectRefusal(refused, 429, 'rate_limited');
        expect(Number(refused.headers['retry-after'])).to.be.above(0);

        // Back on Redis, counting starts from Redis's counters again (empty after the restart).
        await redis.start();
        await reconnected(server);
        expect((await family.inject('GET', '/api/v1/persons')).headers['ratelimit-remaining']).to.equal('2');
    });

    it('waits at most about a second for a Redis that stopped answering, and the next requests not at all', async () => {

        const server = await serverOnRedis();
        const family = await familyWithKey(server);
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        redis.pause();
        const first = await timed(() => family.inject('GET', '/api/v1/persons'));
        expectSuccess(first.result);
        expect(first.ms).to.be.within(900, 2500);        // the epoch's deadline; the rate limit then knows Redis is failing

        const next = await timed(() => family.inject('GET', '/api/v1/persons'));
        expectSuccess(next.result);
        expect(next.ms).to.be.below(500);

        // A PING a second, off the request path, finds it answering again.
        redis.resume();
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const recovered = await timed(() => family.inject('GET', '/api/v1/persons'));
        expectSuccess(recovered.result);
        expect(recovered.ms).to.be.below(500);
    });

    it('refuses a change stream it cannot listen for with 503 service_unavailable and Retry-After, and opens it once Redis is back', async () => {

        const server = await serverOnRedis();
        await server.start();
        const family = await familyWithKey(server);

        await redis.stop();
        const refused = await server.inject({ method: 'GET', url: '/api/v1/events/stream', headers: { authorization: `Bearer ${family.key}` } });
        const payload = expectRefusal(refused, 503, 'service_unavailable');
        expect(refused.headers['retry-after']).to.equal('5');
        expect(payload.message).to.include('Last-Event-ID');
        expect(payload.message).to.not.include('Quote request id');          // not a bug to report

        await redis.start();
        await reconnected(server);
        const stream = await RawStream.open(server, family.key);
        try {
            expect(stream.statusCode).to.equal(200);
        }
        finally {
            stream.close();
        }
    });

    it('refuses a new change stream while Redis is down after earlier streams had listened, and keeps the open one', async () => {

        const server = await serverOnRedis();
        await server.start();
        const family = await familyWithKey(server);
        const open = await RawStream.open(server, family.key);
        const earlier = await RawStream.open(server, family.key);
        try {
            expect([open.statusCode, earlier.statusCode]).to.equal([200, 200]);
            earlier.close();

            await redis.stop();
            await new Promise((resolve) => setTimeout(resolve, 200));      // the subscribers' connections hear of it
            for (let i = 0; i < 2; ++i) {
                const refused = await RawStream.open(server, family.key);
                expect(refused.statusCode).to.equal(503);
                expect(refused.response.headers['retry-after']).to.equal('5');
                await refused.end();
                expect(JSON.parse(refused.text)).to.include({ code: 'service_unavailable' });
            }

            expect(open.finished).to.be.false();

            await redis.start();
            await reconnected(server);
            const deadline = Date.now() + 10_000;
            let again = await RawStream.open(server, family.key);
            while (again.statusCode === 503 && Date.now() < deadline) {              // the subscribers reconnect on their own backoff
                again.close();
                await new Promise((resolve) => setTimeout(resolve, 100));
                again = await RawStream.open(server, family.key);
            }

            expect(again.statusCode).to.equal(200);
            again.close();
        }
        finally {
            open.close();
            earlier.close();
        }
    });

    it('says in the metrics whether the instance is going on without Redis', async () => {

        const server = await serverOnRedis({ env: { METRICS_PORT: '0' } });
        await server.start();
        const family = await familyWithKey(server);
        const failing = async () => {

            const scrape = await (await fetch(`http://127.0.0.1:${server.plugins.metrics.port()!}/metrics`)).text();
            return /^family_records_redis_failing (\d+)$/m.exec(scrape)?.[1];
        };

        expect(await failing()).to.equal('0');
        await redis.stop();
        expectSuccess(await family.inject('GET', '/api/v1/persons'));
        expect(await failing()).to.equal('1');

        await redis.start();
        await reconnected(server);
        expect(await failing()).to.equal('0');
    });

    it('tells a manager who revokes a key while Redis is down that the revocation is saved but must be made again', async () => {

        const server = await serverOnRedis();
        const family = await familyWithKey(server);
        const client = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        await redis.stop();
        const page = await client.post(`/manage/apis/keys/${family.keyId}/revoke`);
        expect(page.statusCode).to.equal(503);
        expect(page.payload).to.contain('The change is saved, but Redis did not answer');
        expect(page.payload).to.contain('Make the change again once Redis answers.');
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 401, 'invalid_key');
    });
});
