import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { suspendFamily, unsuspendFamily } from '../../../lib/accounts/families';
import { allResources, copyPolicies, familyWithKey, testRedisUrl, testServer } from '../../helpers/server';
import { anotherKey, expectRefusal, expectSuccess, injectWithKey, newPerson } from '../requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

// An hour-long window: a test's few requests never straddle the clock-aligned window boundary.
const windowSeconds = 3600;

/** A copy of the policies where the Family plan's preset admits 3 requests per key and 5 per family. */
function tinyRateLimits(): string {

    const directory = copyPolicies();
    Fs.writeFileSync(Path.join(directory, 'rate-limits.yaml'), `_format_version: "1.0"
presets:
  - name: standard
    per_key: { limit: 3, window_seconds: ${windowSeconds} }
    per_family: { limit: 5, window_seconds: ${windowSeconds} }
  - name: high
    per_key: { limit: 3000, window_seconds: 60 }
    per_family: { limit: 6000, window_seconds: 60 }
  - name: messaging
    per_key: { limit: 300, window_seconds: 60 }
    per_family: { limit: 3000, window_seconds: 60 }
`);
    return directory;
}

const policyHeader = `"key";q=3;w=${windowSeconds}, "family";q=5;w=${windowSeconds}`;

/** Asserts the RateLimit headers report `remaining` of `limit` for the tightest `policy`; returns the reset. */
function expectRateLimitHeaders(response: ServerInjectResponse, policy: string, limit: number, remaining: number): number {

    const reset = Number(response.headers['ratelimit-reset']);
    expect(reset).to.be.within(1, windowSeconds);
    expect(response.headers['ratelimit-policy']).to.equal(policyHeader);
    expect(response.headers.ratelimit).to.equal(`"${policy}";r=${remaining};t=${reset}`);
    expect(response.headers['ratelimit-limit']).to.equal(String(limit));
    expect(response.headers['ratelimit-remaining']).to.equal(String(remaining));
    return reset;
}

function expectRateLimited(response: ServerInjectResponse, policy: string, limit: number): void {

    const refusal = expectRefusal(response, 429, 'rate_limited');
    expect(refusal.message).to.include(policy === 'key' ? 'API key' : 'family');
    const reset = expectRateLimitHeaders(response, policy, limit, 0);
    expect(response.headers['retry-after']).to.equal(String(reset));
}

describe('rateLimit()', () => {

    let policiesDir: string;
    let server: Server;

    before(async () => {

        policiesDir = tinyRateLimits();
        server = await testServer({ policiesDir });
    });

    after(async () => {

        await server.stop();
    });

    it('admits a key\'s limit, then refuses with 429 rate_limited, Retry-After and RateLimit headers', async () => {

        const family = await familyWithKey(server);
        for (let remaining = 2; remaining >= 0; --remaining) {
            const response = await family.inject('GET', '/api/v1/persons');
            expectSuccess(response);
            expectRateLimitHeaders(response, 'key', 3, remaining);
            expect(response.headers['retry-after']).to.not.exist();
        }

        expectRateLimited(await family.inject('GET', '/api/v1/persons'), 'key', 3);
        expectRateLimited(await family.inject('POST', '/api/v1/persons', newPerson), 'key', 3);
    });

    it('limits a family across its keys', async () => {

        const family = await familyWithKey(server);
        const secondKey = await anotherKey(server, family.familyLongId, { resources: allResources });
        for (let i = 0; i < 3; ++i) {
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
        }

        expectSuccess(await injectWithKey(server, secondKey, 'GET', '/api/v1/persons'));
        const fifth = await injectWithKey(server, secondKey, 'GET', '/api/v1/persons');
        expectSuccess(fifth);
        expectRateLimitHeaders(fifth, 'family', 5, 0);

        expectRateLimited(await injectWithKey(server, secondKey, 'GET', '/api/v1/persons'), 'family', 5);
        expectRateLimited(await family.inject('GET', '/api/v1/persons'), 'key', 3);
    });

    it('leaves other families alone', async () => {

        const busy = await familyWithKey(server);
        const quiet = await familyWithKey(server);
        for (let i = 0; i < 3; ++i) {
            expectSuccess(await busy.inject('GET', '/api/v1/persons'));
        }

        expectRefusal(await busy.inject('GET', '/api/v1/persons'), 429, 'rate_limited');
        const response = await quiet.inject('GET', '/api/v1/persons');
        expectSuccess(response);
        expectRateLimitHeaders(response, 'key', 3, 2);
    });

    it('counts requests the scopes refuse, and puts the headers on their refusals', async () => {

        const family = await familyWithKey(server, { keyResources: ['persons'], operations: ['read'] });
        const refused = await family.inject('GET', '/api/v1/events');
        expectRefusal(refused, 403, 'resource_scope');
        expectRateLimitHeaders(refused, 'key', 3, 2);
        expectRateLimitHeaders(await family.inject('GET', '/api/v1/persons?search=Ada'), 'key', 3, 1);
    });

    it('counts requests whose body is refused, and refuses them once the limit is reached', async () => {

        const family = await familyWithKey(server);
        const malformed = () => family.inject('POST', '/api/v1/persons', '{"first_name": ', { 'content-type': 'application/json' });
        for (let remaining = 2; remaining >= 0; --remaining) {
            const response = await malformed();
            expectRefusal(response, 400, 'invalid_request');
            expectRateLimitHeaders(response, 'key', 3, remaining);
        }

        expectRateLimited(await malformed(), 'key', 3);
    });

    it('does not count requests the chain refuses before it', async () => {

        const family = await familyWithKey(server);
        await suspendFamily(server.app.services.accounts, family.familyLongId, 'Unusual traffic', 'test');
        for (let i = 0; i < 4; ++i) {
            const refused = await family.inject('GET', '/api/v1/persons');
            expectRefusal(refused, 403, 'family_suspended');
            expect(refused.headers['ratelimit-policy']).to.not.exist();
        }

        await unsuspendFamily(server.app.services.accounts, family.familyLongId);
        expectRateLimitHeaders(await family.inject('GET', '/api/v1/persons'), 'key', 3, 2);
    });

    it('puts no RateLimit headers on a request without a valid key', async () => {

        const response = await server.inject({ method: 'GET', url: '/api/v1/persons' });
        expectRefusal(response, 401, 'invalid_key');
        expect(response.headers['ratelimit-policy']).to.not.exist();
    });

    describe('across instances', { skip: !testRedisUrl }, () => {

        let second: Server;

        before(async () => {

            second = await testServer({ shareWith: server, policiesDir });
        });

        after(async () => {

            await second.stop();
        });

        it('shares a key\'s counter between instances through Redis', async () => {

            const family = await familyWithKey(server);
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
            expectSuccess(await injectWithKey(second, family.key, 'GET', '/api/v1/persons'));
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
            expectRateLimited(await injectWithKey(second, family.key, 'GET', '/api/v1/persons'), 'key', 3);
            expectRateLimited(await family.inject('GET', '/api/v1/persons'), 'key', 3);
        });

        it('shares a family\'s counter between instances through Redis', async () => {

            const family = await familyWithKey(server);
            const secondKey = await anotherKey(server, family.familyLongId, { resources: allResources });
            for (let i = 0; i < 3; ++i) {
                expectSuccess(await family.inject('GET', '/api/v1/persons'));
            }

            expectSuccess(await injectWithKey(second, secondKey, 'GET', '/api/v1/persons'));
            expectSuccess(await injectWithKey(server, secondKey, 'GET', '/api/v1/persons'));
            expectRateLimited(await injectWithKey(second, secondKey, 'GET', '/api/v1/persons'), 'family', 5);
        });
    });
});
