import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { Sequelize } from 'sequelize';

import { changeApiKeyScopes, revokeApiKey } from '../../lib/accounts/api-keys';
import { changePlan, disableApi, enableApi, suspendFamily, unsuspendFamily } from '../../lib/accounts/families';
import { generateApiKeyToken, hashApiKey } from '../../gateway/api-key-token';
import { LastUsedTracker } from '../../gateway/last-used';
import { defineModels, type Models } from '../../models';
import { keptLog } from '../helpers/kept-log';
import { freePort } from '../helpers/ports';
import { allResources, familyWithKey, testServer } from '../helpers/server';
import { expectRefusal, expectSuccess } from './requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('apiKeyScheme()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    const withAuthorization = (authorization?: string) => server.inject({ method: 'GET', url: '/api/v1/persons', headers: authorization === undefined ? {} : { authorization } });

    function expectInvalidKey(response: ServerInjectResponse): void {

        expectRefusal(response, 401, 'invalid_key');
        expect(String(response.headers['www-authenticate'])).to.startWith('Bearer ');
    }

    describe('refusing keys', () => {

        it('refuses a request without a key', async () => {

            for (const authorization of [undefined, '', 'Bearer ', 'Bearer']) {
                const response = await withAuthorization(authorization);
                expectInvalidKey(response);
                expect(JSON.parse(response.payload).message).to.equal('Missing API key: send Authorization: Bearer <API key>.');
            }
        });

        it('refuses a key sent with another scheme, saying so rather than that the key is missing', async () => {

            const { key } = await familyWithKey(server);
            for (const authorization of [`Basic ${Buffer.from(`${key}:`).toString('base64')}`, `Token ${key}`, key]) {
                const response = await withAuthorization(authorization);
                expectInvalidKey(response);
                expect(JSON.parse(response.payload).message).to.equal('Authorization is not of the Bearer scheme: send Authorization: Bearer <API key>.');
            }
        });

        it('refuses a Bearer header of another shape, saying how to write it', async () => {

            const { key } = await familyWithKey(server);
            for (const authorization of [`Bearer\t${key}`, `Bearer ${key} ${key}`, `Bearer ${key}, Bearer ${key}`]) {
                const response = await withAuthorization(authorization);
                expectInvalidKey(response);
                expect(JSON.parse(response.payload).message).to.equal('Malformed Authorization header: send Authorization: Bearer <API key>, the key after one space.');
            }
        });

        it('refuses a malformed key', async () => {

            const { key } = await familyWithKey(server);
            for (const malformed of ['not-a-key', 'frk_', key.slice(0, -1), `${key}x`, `ghp_${key.slice(4)}`, `${key} ${key}`]) {
                expectInvalidKey(await withAuthorization(`Bearer ${malformed}`));
            }
        });

        it('refuses a key whose checksum does not match', async () => {

            const { key } = await familyWithKey(server);
            const typo = `${key.slice(0, 20)}${key[20] === 'a' ? 'b' : 'a'}${key.slice(21)}`;
            const response = await withAuthorization(`Bearer ${typo}`);
            expectInvalidKey(response);
            expect(JSON.parse(response.payload).message).to.equal('Malformed API key.');
        });

        it('refuses a well-formed key it never issued', async () => {

            const response = await withAuthorization(`Bearer ${generateApiKeyToken()}`);
            expectInvalidKey(response);
            expect(JSON.parse(response.payload).message).to.equal('Unknown or revoked API key.');
        });

        it('refuses a revoked key', async () => {

            const family = await familyWithKey(server);
            await revokeApiKey(server.app.services.accounts, family.keyId, 'test');
            expectInvalidKey(await family.inject('GET', '/api/v1/persons'));
        });

        it('accepts the scheme name in any case', async () => {

            const { key } = await familyWithKey(server);
            expectSuccess(await withAuthorization(`bearer ${key}`));
        });
    });

    describe('stored keys', () => {

        it('keeps only a keyed hash of the key, in no column the key itself', async () => {

            const { key, keyId } = await familyWithKey(server);
            const row = await server.app.services.models.ApiKey.findByPk(keyId, { raw: true });
            const secretPart = key.slice('frk_'.length);
            for (const [column, value] of Object.entries(row!)) {
                expect(String(value), column).to.not.include(secretPart);
            }

            expect(row!.secret_hash).to.not.equal(key);
            expect(row!.secret_hash).to.equal(hashApiKey(key, server.app.services.accounts.pepper));
        });
    });

    describe('changes take effect on the very next request', () => {

        it('refuses a key revoked after it was cached', async () => {

            const family = await familyWithKey(server);
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
            await revokeApiKey(server.app.services.accounts, family.keyId, 'test');
            expectRefusal(await family.inject('GET', '/api/v1/persons'), 401, 'invalid_key');
        });

        it('refuses a family suspended after its key was cached, and serves it again once unsuspended', async () => {

            const family = await familyWithKey(server);
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
            await suspendFamily(server.app.services.accounts, family.familyLongId, 'Unusual traffic', 'test');
            expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'family_suspended');
            await unsuspendFamily(server.app.services.accounts, family.familyLongId);
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
        });

        it('refuses a family whose API was disabled after its key was cached', async () => {

            const family = await familyWithKey(server);
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
            await disableApi(server.app.services.accounts, family.familyLongId);
            expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'api_not_enabled');
            await enableApi(server.app.services.accounts, family.familyLongId, allResources);
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
        });

        it('refuses a family moved to the Lite plan after its key was cached', async () => {

            const family = await familyWithKey(server);
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
            await changePlan(server.app.services.accounts, family.familyLongId, 'lite');
            expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'plan_not_eligible');
            await changePlan(server.app.services.accounts, family.familyLongId, 'max');
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
        });

        it('applies a key\'s narrowed scopes after it was cached', async () => {

            const family = await familyWithKey(server);
            expectSuccess(await family.inject('GET', '/api/v1/events'));
            await changeApiKeyScopes(server.app.services.accounts, family.keyId, { resources: ['persons'], operations: ['read'] });
            expectRefusal(await family.inject('GET', '/api/v1/events'), 403, 'resource_scope');
            expectRefusal(await family.inject('GET', '/api/v1/persons?search=Ada'), 403, 'operation_scope');
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
        });
    });

    describe('key cache', () => {

        /** Counts calls of a static model method until restored. */
        function countCalls(model: object, method: 'findOne' | 'findByPk'): { calls: number; restore(): void } {

            const target = model as Record<string, unknown>;
            const original = target[method] as (...args: unknown[]) => unknown;
            const counter = {
                calls: 0,
                restore: () => void delete target[method]         // the model inherits the method from Sequelize's Model
            };

            target[method] = function (this: unknown, ...args: unknown[]) {

                ++counter.calls;
                return original.apply(this, args);
            };

            return counter;
        }

        it('loads a known key from the database once, and again only after the auth epoch moves', async () => {

            const family = await familyWithKey(server);
            const { models, authEpoch } = server.app.services;
            const keyLoads = countCalls(models.ApiKey, 'findOne');
            const familyLoads = countCalls(models.Family, 'findByPk');
            try {
                expectSuccess(await family.inject('GET', '/api/v1/persons'));
                expect(keyLoads.calls).to.equal(1);
                expect(familyLoads.calls).to.equal(1);

                expectSuccess(await family.inject('GET', '/api/v1/persons'));
                expectSuccess(await family.inject('GET', '/api/v1/events'));
                expect(keyLoads.calls).to.equal(1);
                expect(familyLoads.calls).to.equal(1);

                await authEpoch.bump();
                expectSuccess(await family.inject('GET', '/api/v1/persons'));
                expectSuccess(await family.inject('GET', '/api/v1/persons'));
                expect(keyLoads.calls).to.equal(2);
                expect(familyLoads.calls).to.equal(2);
            }
            finally {
                keyLoads.restore();
                familyLoads.restore();
            }
        });

        it('does not cache a refusal: a key refused as unknown is looked up again', async () => {

            const { models } = server.app.services;
            const keyLoads = countCalls(models.ApiKey, 'findOne');
            try {
                const unknown = `Bearer ${generateApiKeyToken()}`;
                expectRefusal(await withAuthorization(unknown), 401, 'invalid_key');
                expectRefusal(await withAuthorization(unknown), 401, 'invalid_key');
                expect(keyLoads.calls).to.equal(2);

                expectRefusal(await withAuthorization('Bearer frk_malformed'), 401, 'invalid_key');
                expect(keyLoads.calls).to.equal(2);
            }
            finally {
                keyLoads.restore();
            }
        });
    });
});

describe('LastUsedTracker', () => {

    it('writes last_used_at in a batch at flush, not on each request', async () => {

        // A server of its own, asserted on at once: its periodic flush is seconds away.
        const server = await testServer();
        const family = await familyWithKey(server);
        const readLastUsed = async (reader: Server) => (await reader.app.services.models.ApiKey.findByPk(family.keyId))!.last_used_at;

        const before = new Date(Date.now() - 1000);
        expectSuccess(await family.inject('GET', '/api/v1/persons'));
        expectSuccess(await family.inject('GET', '/api/v1/persons'));
        expect(await readLastUsed(server)).to.be.null();

        await server.stop();            // flushes
        const reader = await testServer({ shareWith: server });
        try {
            const lastUsed = await readLastUsed(reader);
            expect(lastUsed).to.be.a.date();
            expect(lastUsed!.getTime()).to.be.within(before.getTime(), Date.now());
        }
        finally {
            await reader.stop();
        }
    });

    describe('when the database does not answer', () => {

        let server: Server;
        let refusing: Sequelize;
        let refusingModels: Models;

        before(async () => {

            server = await testServer();
            // A real driver's failure: PostgreSQL's client connecting to a port nothing listens on.
            refusing = new Sequelize(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`, { dialect: 'postgres', logging: false });
            refusingModels = defineModels(refusing);
        });

        after(async () => {

            await refusing.close();
            await server.stop();
        });

        const readLastUsed = async (keyId: string) => (await server.app.services.models.ApiKey.findByPk(keyId))!.last_used_at;

        it('keeps the uses of a failed flush for the next one, and says so once', async () => {

            const { log, lines } = keptLog();
            let answering = false;
            const models = { get ApiKey() {

                return (answering ? server.app.services.models : refusingModels).ApiKey;
            } } as Models;

            const tracker = new LastUsedTracker(models, log);
            const usedBeforeOutage = Date.now();
            const first = await familyWithKey(server);
            const second = await familyWithKey(server);
            tracker.touch(first.keyId);
            await tracker.flush();
            await tracker.flush();
            const usedAfterOutage = Date.now();
            tracker.touch(second.keyId);
            await tracker.flush();
            expect(lines).to.have.length(1);
            expect(lines[0]).to.match(/^\[gateway,unavailable,warn\] Writing when API keys were last used \(kept for the next flush\) did not run: the database is unreachable \(connect ECONNREFUSED /);

            answering = true;
            await tracker.flush();
            expect(lines.slice(1)).to.equal(['[gateway,unavailable] Writing when API keys were last used (kept for the next flush) runs again: the database answers (3 runs missed)']);
            expect((await readLastUsed(first.keyId))!.getTime()).to.be.at.least(usedBeforeOutage);
            expect((await readLastUsed(second.keyId))!.getTime()).to.be.at.least(usedAfterOutage);

            await tracker.flush();              // nothing left to write
            expect(lines).to.have.length(2);
        });

        it('stops without rejecting, so the server\'s own shutdown goes on', async () => {

            const { log, lines } = keptLog();
            const tracker = new LastUsedTracker(refusingModels, log);
            tracker.start();
            tracker.touch((await familyWithKey(server)).keyId);
            await tracker.stop();
            expect(lines).to.have.length(1);
            expect(lines[0]).to.contain('did not run: the database is unreachable');
        });
    });
});
