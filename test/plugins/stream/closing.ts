import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { changeApiKeyScopes, revokeApiKey } from '../../../lib/accounts/api-keys';
import { changePlan, disableApi, suspendFamily } from '../../../lib/accounts/families';
import { anotherKey, expectSuccess, injectWithKey, newPerson } from '../../gateway/requests';
import { copyPolicies, familyWithKey, testServer } from '../../helpers/server';
import { listeningServer, openedStream, RawStream, streamSuiteTitle, until } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

// Closing must happen within a second; waiting longer before failing keeps a busy machine from failing the test.
const CLOSE_WAIT_MS = 5000;

describe(streamSuiteTitle('closing'), () => {

    let server: Server;

    before(async () => {

        server = await listeningServer();
    });

    after(() => server.stop());

    /** Waits for the stream's last event, `close`, and the end of the connection; returns the event's data. */
    async function closedWith(stream: RawStream): Promise<{ code: string; message: string }> {

        const last = await stream.eventNamed('close', CLOSE_WAIT_MS);
        await stream.end(CLOSE_WAIT_MS);
        expect(stream.events.at(-1)).to.shallow.equal(last);
        return last.data;
    }

    it('closes the stream when its key is revoked, saying why', async () => {

        const family = await familyWithKey(server);
        const stream = await openedStream(server, family);
        await revokeApiKey(server.app.services.accounts, family.keyId, 'test');

        expect(await closedWith(stream)).to.equal({ code: 'invalid_key', message: 'Unknown or revoked API key.' });
    });

    it('closes the family\'s streams when a super-admin suspends it', async () => {

        const family = await familyWithKey(server);
        const streams = [await openedStream(server, family), await openedStream(server, family)];
        await suspendFamily(server.app.services.accounts, family.familyLongId, 'Unusual traffic', 'test');

        for (const stream of streams) {
            expect((await closedWith(stream)).code).to.equal('family_suspended');
        }
    });

    it('closes the stream when the family moves to a plan without API access', async () => {

        const family = await familyWithKey(server);
        const stream = await openedStream(server, family);
        await changePlan(server.app.services.accounts, family.familyLongId, 'lite');

        expect((await closedWith(stream)).code).to.equal('plan_not_eligible');
    });

    it('closes the stream when the family changes plan, so the client reconnects under the new one', async () => {

        const family = await familyWithKey(server);
        const stream = await openedStream(server, family);
        await changePlan(server.app.services.accounts, family.familyLongId, 'max');

        expect((await closedWith(stream)).code).to.equal('credentials_changed');
        const again = await openedStream(server, family);
        again.close();
    });

    it('closes the stream when the API is disabled or the key\'s scope changes', async () => {

        const disabled = await familyWithKey(server);
        const rescoped = await familyWithKey(server);
        const [first, second] = [await openedStream(server, disabled), await openedStream(server, rescoped)];
        await disableApi(server.app.services.accounts, disabled.familyLongId);
        await changeApiKeyScopes(server.app.services.accounts, rescoped.keyId, { resources: ['persons'] });

        expect((await closedWith(first)).code).to.equal('api_not_enabled');
        expect((await closedWith(second)).code).to.equal('credentials_changed');
    });

    it('closes the stream when a policy edit takes its plan\'s API access away, as a new request would be refused', async () => {

        const policiesDir = copyPolicies();
        const edited = await listeningServer({ policiesDir });
        try {
            const family = await familyWithKey(edited);
            const stream = await openedStream(edited, family);
            const plans = Path.join(policiesDir, 'plans.yaml');
            Fs.writeFileSync(plans, Fs.readFileSync(plans, 'utf8')
                .replace('upgrade_to: family', 'upgrade_to: max')
                .replace(/(name: family\n\s+label: Family\n\s+)api_access: true/, '$1api_access: false\n    upgrade_to: max'));
            expect(edited.app.services.policyStore.reload()).to.be.true();

            expect((await family.inject('GET', '/api/v1/persons')).result).to.include({ code: 'plan_not_eligible' });
            expect((await closedWith(stream)).code).to.equal('plan_not_eligible');
        }
        finally {
            await edited.stop({ timeout: 1000 });
        }
    });

    it('keeps the stream open when another key of the family is revoked', async () => {

        const family = await familyWithKey(server);
        const stream = await openedStream(server, family);
        const other = await anotherKey(server, family.familyLongId, { resources: ['persons'] });
        const { ApiKey } = server.app.services.models;
        const otherId = (await ApiKey.findOne({ where: { family_long_id: family.familyLongId, name: 'another key' } }))!.id;
        await revokeApiKey(server.app.services.accounts, otherId, 'test');
        expect((await injectWithKey(server, other, 'GET', '/api/v1/persons')).statusCode).to.equal(401);

        expectSuccess(await family.inject('POST', '/api/v1/persons', newPerson), 201);
        await stream.nextChanges(1);
        expect(stream.finished).to.be.false();
        stream.close();
    });

    it('checks an open stream again without counting it against the rate limit', async () => {

        const family = await familyWithKey(server);
        const stream = await openedStream(server, family);
        const remaining = async (method: string, path: string, payload?: object) => Number((await family.inject(method, path, payload)).headers['ratelimit-remaining']);

        const before = await remaining('GET', '/api/v1/persons');
        const other = await anotherKey(server, family.familyLongId, { resources: ['persons'] });
        const { ApiKey } = server.app.services.models;
        await revokeApiKey(server.app.services.accounts, (await ApiKey.findOne({ where: { family_long_id: family.familyLongId, name: 'another key' } }))!.id, 'test');
        expect((await injectWithKey(server, other, 'GET', '/api/v1/persons')).statusCode).to.equal(401);

        // The revocation moved the auth epoch: the stream is checked again before it carries the next change.
        expect(await remaining('POST', '/api/v1/persons', newPerson)).to.equal(before - 1);
        await stream.nextChanges(1);
        expect(await remaining('GET', '/api/v1/persons')).to.equal(before - 2);
        expect(stream.finished).to.be.false();
        stream.close();
    });

    it('closes a stream held by one instance when the key is revoked through another', async () => {

        // SQLite: the auth-epoch marker file both instances watch (as the CLI changes it); with Redis: its pub/sub.
        const other = await testServer({ shareWith: server });
        try {
            const family = await familyWithKey(server);
            const stream = await openedStream(server, family);
            await revokeApiKey(other.app.services.accounts, family.keyId, 'test');

            expect((await closedWith(stream)).code).to.equal('invalid_key');
        }
        finally {
            await other.stop();
        }
    });

    it('closes a stream whose key is revoked after the gateway admitted it but before it listened', async () => {

        // A server of its own: no stream open, so its hub starts listening only for this one.
        const racing = await listeningServer();
        try {
            const family = await familyWithKey(racing);
            racing.ext('onPreHandler', async (request, h) => {

                if (request.path === '/api/v1/events/stream') {
                    await revokeApiKey(racing.app.services.accounts, family.keyId, 'test');
                }

                return h.continue;
            });

            const stream = await RawStream.open(racing, family.key);
            expect(stream.statusCode).to.equal(200);
            expect(await closedWith(stream)).to.equal({ code: 'invalid_key', message: 'Unknown or revoked API key.' });
            expect(racing.plugins.stream.openStreams()).to.equal(0);
        }
        finally {
            await racing.stop({ timeout: 1000 });
        }
    });

    it('lets go of everything when the client disconnects', async () => {

        const { changeBus, policyStore } = server.app.services;
        await until(() => server.plugins.stream.openStreams() === 0, 'earlier tests\' streams to close');
        const baseline = changeBus.listenerCount();
        const reloadListeners = policyStore.listenerCount('reloaded');
        const family = await familyWithKey(server);
        const streams = [await openedStream(server, family), await openedStream(server, family)];
        expect(server.plugins.stream.openStreams()).to.equal(2);
        expect(changeBus.listenerCount()).to.equal(baseline + 1);

        streams.forEach((stream) => stream.close());
        await until(() => server.plugins.stream.openStreams() === 0 && changeBus.listenerCount() === baseline, 'the streams to be released');
        expect(policyStore.listenerCount('reloaded')).to.equal(reloadListeners);

        // Writing on after the client left costs nothing and fails nothing.
        expectSuccess(await family.inject('POST', '/api/v1/persons', newPerson), 201);
    });

    it('closes every stream with reason shutdown when the server stops', async () => {

        const stopping = await listeningServer();
        const family = await familyWithKey(stopping);
        const stream = await openedStream(stopping, family);
        await stopping.stop({ timeout: 5000 });

        expect((await closedWith(stream)).code).to.equal('shutdown');
    });
});
