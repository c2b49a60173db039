import { spawnSync } from 'child_process';
import Crypto from 'crypto';
import { IncomingMessage, ServerResponse } from 'http';
import { Socket } from 'net';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { createClient, ErrorReply } from 'redis';

import { decide } from '../../gateway/rate-limit/decide';
import { writeRateLimitHeaders } from '../../gateway/rate-limit/headers';
import { MemoryRateLimitStore } from '../../gateway/rate-limit/memory-store';
import { RedisRateLimitStore } from '../../gateway/rate-limit/redis-store';
import type { RateLimitDecision, RateLimitRule, RateLimitStore } from '../../gateway/rate-limit/types';
import { RedisOutage } from '../../lib/redis-outage';
import { clearOfHourBoundary } from '../helpers/timing';

export const lab = Lab.script();
const { describe, it, before, beforeEach, after } = lab;
const { expect } = Code;

type RedisClient = ReturnType<typeof createClient>;

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisAnswers = probeRedis(redisUrl);

/** A store to test, and how to move its time to the start of the next window of a given length. */
interface StoreUnderTest {
    store: RateLimitStore;
    nextWindow(windowSeconds: number): Promise<void>;
}

describe('decide()', () => {

    it('rounds the reset up to whole seconds, never below 1', () => {

        const decision = decide([rule('key', 10, 60), rule('family', 10, 60)], [{ used: 0, ttlMs: 1500 }, { used: 0, ttlMs: 0 }]);
        expect(decision.states.map((state) => state.resetSeconds)).to.equal([2, 1]);
    });

    it('reports the longer wait when rules tie on remaining', () => {

        const decision = decide([rule('key', 5, 60), rule('family', 5, 3600)], [{ used: 2, ttlMs: 10_000 }, { used: 2, ttlMs: 900_000 }]);
        expect(decision.tightest.rule.policy).to.equal('family');
    });

    it('refuses an empty rule list', () => {

        expect(() => decide([], [])).to.throw(TypeError);
    });
});

describe('MemoryRateLimitStore', () => {

    const epochHour = Date.UTC(2030, 0, 1);          // Aligned to every window used below

    const openMemoryStore = (): StoreUnderTest & { clock: { now: number }; store: MemoryRateLimitStore } => {

        const clock = { now: epochHour };
        return {
            clock,
            store: new MemoryRateLimitStore(() => clock.now),
            nextWindow: async (windowSeconds) => {

                const windowMs = windowSeconds * 1000;
                clock.now = (Math.floor(clock.now / windowMs) + 1) * windowMs;
            }
        };
    };

    describeStoreBehaviour(async () => openMemoryStore());

    it('reports whole seconds until the clock-aligned window resets', async () => {

        const { store, clock } = openMemoryStore();
        clock.now = epochHour + 45_500;
        expect((await store.hit([rule('key', 10, 60)])).tightest.resetSeconds).to.equal(15);
        clock.now = epochHour + 59_999;
        expect((await store.hit([rule('key', 10, 60)])).tightest.resetSeconds).to.equal(1);
    });

    it('counts a window anew when its length changes, even where both lengths start at the same instant', async () => {

        const { store, clock } = openMemoryStore();
        clock.now = epochHour + 30_000;                  // in the hour's first minute: the 60 s and 3,600 s windows both began at epochHour
        const perMinute = rule('key', 1, 60);
        expect((await store.hit([perMinute])).allowed).to.be.true();

        // The same key after a policy edit from "1 a minute" to "1 an hour": its first request of the hour.
        const perHour = { ...perMinute, windowSeconds: 3600 };
        const decision = await store.hit([perHour]);
        expect(decision.allowed).to.be.true();
        expect(decision.tightest.count).to.equal(1);
        expect((await store.hit([perHour])).allowed).to.be.false();
    });

    it('counts by policy, subject and window length, whichever rule object names them', async () => {

        // The gateway reuses a key's rules until a policy edit brings new ones: the count must carry over.
        const { store } = openMemoryStore();
        const twoAMinute = rule('key', 2, 60);
        await store.hit([twoAMinute]);
        expect((await store.hit([{ ...twoAMinute }])).tightest.count).to.equal(2);
        expect((await store.hit([{ ...twoAMinute }])).allowed).to.be.false();
        expect((await store.hit([{ ...twoAMinute, subject: 'another key' }])).allowed).to.be.true();
    });

    it('sweeps counters of past windows', async () => {

        const { store, clock } = openMemoryStore();
        for (let i = 0; i < 1000; ++i) {
            await store.hit([rule('key', 10, 60)]);
        }

        expect(store.size).to.equal(1000);
        clock.now += 61_000;
        await store.hit([rule('key', 10, 60)]);
        expect(store.size).to.equal(1);
    });
});

describe('RedisRateLimitStore', { skip: !redisAnswers }, () => {

    const keyPrefix = `fr-test-${Crypto.randomBytes(6).toString('hex')}:`;
    let client: RedisClient;
    let otherClient: RedisClient;               // A second instance's connection
    // One watcher of each connection, as a deployment has: each adds listeners to its client for the client's life.
    let outage: RedisOutage;
    let otherOutage: RedisOutage;

    before(async () => {

        client = await connectRedis();
        otherClient = await connectRedis();
        outage = new RedisOutage(client, () => undefined);
        otherOutage = new RedisOutage(otherClient, () => undefined);
    });

    // Redis counts in hour-long windows of the real clock here: every hit of a test falls in one.
    beforeEach(() => clearOfHourBoundary());

    after(async () => {

        for await (const key of client.scanIterator({ MATCH: `${keyPrefix}*`, COUNT: 1000 })) {
            await client.del(key);
        }

        await client.quit();
        await otherClient.quit();
    });

    describeStoreBehaviour(async () => ({
        store: new RedisRateLimitStore(client, keyPrefix, outage),
        nextWindow: waitForNextWindow
    }));

    it('admits exactly the limit across two instances hitting at once', async () => {

        const stores = [new RedisRateLimitStore(client, keyPrefix, outage), new RedisRateLimitStore(otherClient, keyPrefix, otherOutage)];
        const rules = [rule('key', 50, 3600), rule('family', 1000, 3600)];
        const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => stores[i % 2].hit(rules)));

        expect(decisions.filter((decision) => decision.allowed)).to.have.length(50);
        const next = await stores[0].hit(rules);
        expect(next.states.map((state) => state.count)).to.equal([50, 50]);
    });

    it('names each counter by prefix, policy, subject, window length and start, expiring with its window', async () => {

        const keyRule = rule('key', 10, 3600);
        const now = Date.now();
        await new RedisRateLimitStore(client, keyPrefix, outage).hit([keyRule]);
        const windowStart = Math.floor(now / 3_600_000) * 3_600_000;
        const key = `${keyPrefix}rl:key:${keyRule.subject}:3600:${windowStart}`;

        expect(await client.get(key)).to.equal('1');
        const ttl = await client.pTTL(key);
        expect(ttl).to.be.greaterThan(0);
        expect(ttl).to.be.at.most(3_600_000);
    });

    it('falls back to EVAL when Redis has forgotten the script', async () => {

        const { forgetful, evalCalls } = forgetfulClient(client);
        const store = new RedisRateLimitStore(forgetful, keyPrefix, outage);
        const keyRule = rule('key', 10, 3600);

        expect((await store.hit([keyRule])).tightest.count).to.equal(1);
        expect(evalCalls()).to.equal(1);
        expect((await store.hit([keyRule])).tightest.count).to.equal(2);
        expect(evalCalls()).to.equal(1);
    });

    it('leaves the borrowed client open on close()', async () => {

        await new RedisRateLimitStore(client, keyPrefix, outage).close();
        expect(await client.ping()).to.equal('PONG');
    });
});

describe('writeRateLimitHeaders()', () => {

    const rateLimitHeaders = (decision: RateLimitDecision) => {

        const response = new ServerResponse(new IncomingMessage(new Socket()));
        writeRateLimitHeaders(decision, response);
        return { ...response.getHeaders() };
    };

    const keyRule: RateLimitRule = { policy: 'key', subject: 'k1', limit: 600, windowSeconds: 60 };
    const familyRule: RateLimitRule = { policy: 'family', subject: 'f1', limit: 1200, windowSeconds: 60 };

    it('lists every policy and reports the tightest in both drafts', () => {

        const decision = decide([keyRule, familyRule], [{ used: 587, ttlMs: 29_200 }, { used: 100, ttlMs: 29_200 }]);
        expect(rateLimitHeaders(decision)).to.equal({
            'ratelimit-policy': '"key";q=600;w=60, "family";q=1200;w=60',
            'ratelimit': '"key";r=12;t=30',
            'ratelimit-limit': '600',
            'ratelimit-remaining': '12',
            'ratelimit-reset': '30'
        });
    });

    it('adds Retry-After when denied', () => {

        const decision = decide([keyRule, familyRule], [{ used: 100, ttlMs: 30_000 }, { used: 1200, ttlMs: 45_000 }]);
        expect(rateLimitHeaders(decision)).to.equal({
            'ratelimit-policy': '"key";q=600;w=60, "family";q=1200;w=60',
            'ratelimit': '"family";r=0;t=45',
            'ratelimit-limit': '1200',
            'ratelimit-remaining': '0',
            'ratelimit-reset': '45',
            'retry-after': '45'
        });
    });

    it('escapes policy names as structured-field strings', () => {

        const decision = decide([{ ...keyRule, policy: 'a"b\\c' }], [{ used: 0, ttlMs: 1000 }]);
        expect(rateLimitHeaders(decision).ratelimit).to.equal('"a\\"b\\\\c";r=599;t=1');
    });
});


/** The behaviour every RateLimitStore shares; `open` gives a fresh store for each test. */
function describeStoreBehaviour(open: () => Promise<StoreUnderTest>): void {

    it('allows up to the limit, then denies', async () => {

        const { store } = await open();
        const rules = [rule('key', 3, 3600)];
        const decisions = [];
        for (let i = 0; i < 4; ++i) {
            decisions.push(await store.hit(rules));
        }

        expect(decisions.map((decision) => decision.allowed)).to.equal([true, true, true, false]);
        expect(decisions.map((decision) => decision.tightest.remaining)).to.equal([2, 1, 0, 0]);
        expect(decisions.map((decision) => decision.tightest.count)).to.equal([1, 2, 3, 3]);
    });

    it('counts every rule and reports the tighter one', async () => {

        const { store } = await open();
        const family = rule('family', 4, 3600);
        const keyA = rule('key', 10, 3600);
        const keyB = rule('key', 10, 3600);

        await store.hit([keyA, family]);
        await store.hit([keyA, family]);
        const third = await store.hit([keyB, family]);
        expect(third.states.map((state) => state.count)).to.equal([1, 3]);
        expect(third.tightest.rule).to.equal(family);
        expect(third.tightest.remaining).to.equal(1);

        expect((await store.hit([keyB, family])).allowed).to.be.true();
        const denied = await store.hit([keyA, family]);
        expect(denied.allowed).to.be.false();
        expect(denied.tightest.rule).to.equal(family);
    });

    it('does not count a denied request against the other rules', async () => {

        const { store } = await open();
        const family = rule('family', 10, 3600);
        const keyA = rule('key', 1, 3600);

        await store.hit([keyA, family]);
        for (let i = 0; i < 5; ++i) {
            expect((await store.hit([keyA, family])).allowed).to.be.false();
        }

        const other = await store.hit([rule('key', 10, 3600), family]);
        expect(other.states[1].count).to.equal(2);
    });

    it('sets retryAfter to the longest reset among the exceeded rules only', async () => {

        const { store } = await open();
        const shortWindow = rule('key', 1, 60);
        const longWindow = rule('family', 100, 3600);

        const allowed = await store.hit([shortWindow, longWindow]);
        expect(allowed.retryAfterSeconds).to.be.undefined();
        const denied = await store.hit([shortWindow, longWindow]);
        expect(denied.allowed).to.be.false();
        expect(denied.retryAfterSeconds).to.equal(denied.states[0].resetSeconds);

        const bothFull = [rule('key', 1, 60), rule('family', 1, 3600)];
        await store.hit(bothFull);
        const bothDenied = await store.hit(bothFull);
        expect(bothDenied.retryAfterSeconds).to.equal(Math.max(...bothDenied.states.map((state) => state.resetSeconds)));
    });

    it('starts counting afresh in the next window', { timeout: 5000 }, async () => {

        const { store, nextWindow } = await open();
        const rules = [rule('key', 2, 1)];

        await nextWindow(1);                    // A whole window ahead, so the first three hits share it
        await store.hit(rules);
        await store.hit(rules);
        expect((await store.hit(rules)).allowed).to.be.false();

        await nextWindow(1);
        const fresh = await store.hit(rules);
        expect(fresh.allowed).to.be.true();
        expect(fresh.tightest.count).to.equal(1);
    });

    it('counts at the longest window and the largest limit the policies allow', async () => {

        const { store } = await open();
        const decision = await store.hit([rule('key', 999_999_999_999_999, 86_400)]);

        expect(decision.allowed).to.be.true();
        expect(decision.tightest.remaining).to.equal(999_999_999_999_998);
        expect(decision.tightest.resetSeconds).to.be.within(1, 86_400);
    });

    it('refuses hits once closed', async () => {

        const { store } = await open();
        await store.close();
        await expect((async () => store.hit([rule('key', 1, 60)]))()).to.reject(Error);       // the memory store throws, the Redis store rejects
    });
}

/** A rule on a subject no other test uses. */
function rule(policy: string, limit: number, windowSeconds: number): RateLimitRule {

    return { policy, subject: Crypto.randomBytes(6).toString('hex'), limit, windowSeconds };
}

async function waitForNextWindow(windowSeconds: number): Promise<void> {

    const windowMs = windowSeconds * 1000;
    await new Promise((resolve) => setTimeout(resolve, windowMs - (Date.now() % windowMs) + 10));
}

async function connectRedis(): Promise<RedisClient> {

    const client: RedisClient = createClient({ url: redisUrl });
    client.on('error', () => {});               // A failure rejects the command that met it; the event would only crash lab
    await client.connect();
    return client;
}

// Whether to run the Redis tests has to be known when they are declared, before any
// test runs, hence a synchronous probe in a child process with a short connect timeout.
function probeRedis(url: string): boolean {

    const probe = `
        const { createClient } = require(${JSON.stringify(require.resolve('redis'))});
        const client = createClient({ url: process.argv[1], socket: { connectTimeout: 500, reconnectStrategy: false } });
        client.on('error', () => {});
        client.connect().then(() => client.ping()).then(() => process.exit(0), () => process.exit(1));
    `;
    return spawnSync(process.execPath, ['-e', probe, url], { timeout: 3000 }).status === 0;
}

/** The client, except that its first EVALSHA fails as if Redis had restarted; counts EVAL calls. */
function forgetfulClient(client: RedisClient): { forgetful: RedisClient; evalCalls: () => number } {

    let forgotten = false;
    let evalCalls = 0;
    const forgetful = new Proxy(client, {
        get(target, property) {

            if (property === 'evalSha' && !forgotten) {
                forgotten = true;
                return () => Promise.reject(new ErrorReply('NOSCRIPT No matching script. Please use EVAL.'));
            }

            if (property === 'eval') {
                ++evalCalls;
            }

            const value: unknown = Reflect.get(target, property, target);
            return typeof value === 'function' ? value.bind(target) : value;       // The client's private fields need the real `this`
        }
    });

    return { forgetful, evalCalls: () => evalCalls };
}
