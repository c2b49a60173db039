import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';

import { createFamily } from '../../../lib/accounts/families';
import { principalOf } from '../../../gateway/principal';
import { familyWithKey, testServer } from '../../helpers/server';
import { signedIn } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const fullKey = /value="(frk_[0-9A-Za-z]+)"/;
const fullChoice = 'name="living_persons" value="full" checked';
const redactedChoice = 'name="living_persons" value="redacted" checked';

describe('Manage > APIs & Connectors: what a key sees of living relatives', () => {

    let server: Server;
    /** The living_persons of the last API request of each key id. */
    const seen = new Map<string, string>();

    before(async () => {

        server = await testServer();
        server.ext('onPostAuth', (request: Request, h: ResponseToolkit) => {

            if (request.auth.isAuthenticated && request.path.startsWith('/api/')) {
                seen.set(principalOf(request).who.id, principalOf(request).scopes.livingPersons);
            }

            return h.continue;
        });
    });

    after(() => server.stop());

    async function managerWithApi() {

        const family = await createFamily(server.app.services.accounts, { name: 'The Living', plan: 'family' });
        const client = await signedIn(server, { role: 'manager', familyLongId: family.family_long_id });
        await client.post('/manage/apis/enable', { resources: ['persons'] });
        return { client, familyLongId: family.family_long_id };
    }

    /** What the key's next API request carries. */
    async function livingPersonsOf(key: string, keyId: string) {

        expect((await server.inject({ method: 'GET', url: '/api/v1/persons', headers: { authorization: `Bearer ${key}` } })).statusCode).to.equal(200);
        return seen.get(keyId);
    }

    it('offers full details by default on the create form, and a key created so sees living persons in full', async () => {

        const { client, familyLongId } = await managerWithApi();
        const form = (await client.get('/manage/apis/keys/new')).payload;
        expect(form).to.contain('<legend class="label">Living relatives</legend>');
        expect(form).to.contain(fullChoice);
        expect(form).to.not.contain(redactedChoice);
        expect(form).to.contain('Hide living persons\' details');
        expect(form).to.contain('names shown as “Living”; dates, places, notes removed');

        // A form without the choice (sent by a page from before it) gets full, as every key before it.
        const created = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: 'Full sync', resources: ['persons'], operations: ['read'] });
        expect(created.statusCode).to.equal(201);
        expect(created.payload).to.contain('living relatives in full');
        const apiKey = (await server.app.services.models.ApiKey.findOne({ where: { family_long_id: familyLongId } }))!;
        expect(apiKey.living_persons).to.equal('full');
        expect(await livingPersonsOf(fullKey.exec(created.payload)![1], apiKey.id)).to.equal('full');
    });

    it('creates a key hiding living persons\' details, lists it so, and changes it to full and back like its scopes, audited, at once', async () => {

        const { client, familyLongId } = await managerWithApi();
        const created = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: 'Public tree', resources: ['persons'], operations: ['read'], living_persons: 'redacted' });
        expect(created.statusCode).to.equal(201);
        expect(created.payload).to.contain('living relatives hidden');
        const key = fullKey.exec(created.payload)![1];
        const apiKey = (await server.app.services.models.ApiKey.findOne({ where: { family_long_id: familyLongId } }))!;
        expect(apiKey.living_persons).to.equal('redacted');
        expect(await livingPersonsOf(key, apiKey.id)).to.equal('redacted');

        expect((await client.get('/manage/apis')).payload).to.contain('living relatives hidden');
        const admin = await signedIn(server, { role: 'super-admin' });
        expect((await admin.get(`/admin/apis/families/${familyLongId}`)).payload).to.contain('living relatives hidden');

        const edit = (await client.get(`/manage/apis/keys/${apiKey.id}`)).payload;
        expect(edit).to.contain(redactedChoice);
        expect(edit).to.not.contain(fullChoice);

        const toFull = await client.post(`/manage/apis/keys/${apiKey.id}/scopes`, { resources: ['persons'], operations: ['read'], living_persons: 'full' });
        expect(toFull.headers.location).to.equal('/manage/apis?notice=key-scopes-changed');
        expect(await livingPersonsOf(key, apiKey.id)).to.equal('full');
        expect((await client.get('/manage/apis')).payload).to.contain('living relatives in full');
        expect((await client.get(`/manage/apis/keys/${apiKey.id}`)).payload).to.contain(fullChoice);

        await client.post(`/manage/apis/keys/${apiKey.id}/scopes`, { resources: ['persons'], operations: ['read'], living_persons: 'redacted' });
        expect(await livingPersonsOf(key, apiKey.id)).to.equal('redacted');

        const audit = await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: familyLongId, target: apiKey.id }, order: [['id', 'ASC']] });
        expect(audit.map((event) => [event.action, event.detail])).to.equal([
            ['api_key.create', '“Public tree”: persons / read / living persons redacted'],
            ['api_key.change_scopes', 'persons / read / living persons full'],
            ['api_key.change_scopes', 'persons / read / living persons redacted']
        ]);
    });

    it('says in words that the choice is full or redacted, on the create and the edit form, changing nothing', async () => {

        const { client, familyLongId } = await managerWithApi();
        const refused = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: 'Odd', resources: ['persons'], operations: ['read'], living_persons: 'some' });
        expect(refused.statusCode).to.equal(422);
        expect(refused.payload).to.contain('role="alert">Living persons must be one of full, redacted.');
        expect(refused.payload).to.contain('value="Odd"');
        expect(await server.app.services.models.ApiKey.count({ where: { family_long_id: familyLongId } })).to.equal(0);

        const fixture = await familyWithKey(server, { resources: ['persons'], livingPersons: 'redacted' });
        const manager = await signedIn(server, { role: 'manager', familyLongId: fixture.familyLongId });
        const edit = await manager.post(`/manage/apis/keys/${fixture.keyId}/scopes`, { resources: ['persons'], operations: ['read'], living_persons: ['full', 'redacted'] });
        expect(edit.statusCode).to.equal(400);
        const odd = await manager.post(`/manage/apis/keys/${fixture.keyId}/scopes`, { resources: ['persons'], operations: ['read'], living_persons: 'FULL' });
        expect(odd.statusCode).to.equal(422);
        expect(odd.payload).to.contain('Living persons must be one of full, redacted.');
        expect((await server.app.services.models.ApiKey.findByPk(fixture.keyId))!.living_persons).to.equal('redacted');
    });
});
