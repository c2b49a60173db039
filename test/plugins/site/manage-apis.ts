import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createApiKey } from '../../../lib/accounts/api-keys';
import { createFamily } from '../../../lib/accounts/families';
import { familyWithKey, testServer } from '../../helpers/server';
import { signedIn } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const fullKey = /value="(frk_[0-9A-Za-z]+)"/;

describe('Manage > APIs & Connectors', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    async function managerOf(plan = 'family') {

        const family = await createFamily(server.app.services.accounts, { name: `Family on ${plan}`, plan });
        const client = await signedIn(server, { role: 'manager', familyLongId: family.family_long_id });
        return { client, familyLongId: family.family_long_id };
    }

    const api = (key: string, method = 'GET', url = '/api/v1/persons') => server.inject({ method, url, headers: { authorization: `Bearer ${key}` } });

    it('tells a Lite family why it has no API, and which plan would give it one', async () => {

        const { client, familyLongId } = await managerOf('lite');
        const page = await client.get('/manage/apis');
        expect(page.payload).to.contain('The Lite plan does not include API access.');
        expect(page.payload).to.contain('<strong>Family</strong> plan');
        expect(page.payload).to.not.contain('action="/manage/apis/enable"');

        const refused = await client.post('/manage/apis/enable', { resources: ['persons'] });
        expect(refused.statusCode).to.equal(403);
        expect(refused.payload).to.contain('does not include API access; upgrade to Family');
        expect((await server.app.services.models.Family.findByPk(familyLongId))!.api_enabled).to.be.false();
    });

    it('turns API access on with the chosen resources, and off, recording both', async () => {

        const { client, familyLongId } = await managerOf();
        const none = await client.post('/manage/apis/enable', {});
        expect(none.statusCode).to.equal(422);
        expect(none.payload).to.contain('Resources must be some of');

        const on = await client.post('/manage/apis/enable', { resources: ['persons', 'events'] });
        expect(on.headers.location).to.equal('/manage/apis?notice=api-enabled');
        const family = (await server.app.services.models.Family.findByPk(familyLongId))!;
        expect(family.api_enabled).to.be.true();
        expect(family.api_resources).to.equal(['persons', 'events']);
        expect((await client.get(on.headers.location as string)).payload).to.contain('API access is on.');

        await client.post('/manage/apis/disable');
        await family.reload();
        expect(family.api_enabled).to.be.false();

        const actions = (await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: familyLongId }, order: [['id', 'ASC']] })).map((event) => event.action);
        expect(actions).to.equal(['session.sign_in', 'api.enable', 'api.disable']);
    });

    it('creates a key with write operations off unless ticked, shows it once, and it works', async () => {

        const { client, familyLongId } = await managerOf();
        await client.post('/manage/apis/enable', { resources: ['persons', 'trees'] });

        const form = await client.get('/manage/apis/keys/new');
        for (const write of ['create', 'update', 'delete']) {
            expect(form.payload).to.match(new RegExp(`name="operations" value="${write}">`));
        }

        expect(form.payload).to.contain('name="operations" value="read" checked');

        const created = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: 'Genealogy sync', resources: ['persons'], operations: ['read', 'create'] });
        expect(created.statusCode).to.equal(201);
        expect(created.payload).to.contain('You will not see it again.');
        const key = fullKey.exec(created.payload)![1];

        expect((await api(key)).statusCode).to.equal(200);
        expect((await api(key, 'GET', '/api/v1/trees')).statusCode).to.equal(403);
        const apiKey = (await server.app.services.models.ApiKey.findOne({ where: { family_long_id: familyLongId } }))!;
        expect(apiKey.operation_scopes).to.equal(['read', 'create']);

        const overview = await client.get('/manage/apis');
        expect(overview.payload).to.not.contain(key);
        expect(overview.payload).to.contain(`${key.slice(0, 8)}…${key.slice(-4)}`);
        expect(overview.payload).to.contain(client.account.email);               // created by

        const audit = await server.app.services.models.AuditEvent.findOne({ where: { family_long_id: familyLongId, action: 'api_key.create' } });
        expect(audit!.target).to.equal(apiKey.id);
        expect(audit!.actor_email).to.equal(client.account.email);
        expect(audit!.detail).to.not.contain(key);
    });

    it('says in words what is wrong with a key form, keeping what was typed', async () => {

        const { client } = await managerOf();
        await client.post('/manage/apis/enable', { resources: ['persons'] });
        const response = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: '  ', resources: ['persons'], operations: ['read', 'delete'] });
        expect(response.statusCode).to.equal(422);
        expect(response.payload).to.contain('A key name is 1 to 100 characters.');
        expect(response.payload).to.contain('name="operations" value="delete" checked');
    });

    it('counts a key name in characters: 100 emoji are a name, 101 are refused in words on the form and by the service', async () => {

        const { client, familyLongId } = await managerOf();
        await client.post('/manage/apis/enable', { resources: ['persons'] });
        // maxlength counts UTF-16 units: 200 lets 100 emoji through, and 101 characters of the BMP reach the server's words.
        expect((await client.get('/manage/apis/keys/new')).payload).to.contain('name="name" value="" maxlength="200"');

        const tooLong = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: '🌳'.repeat(101), resources: ['persons'], operations: ['read'] });
        expect(tooLong.statusCode).to.equal(422);
        expect(tooLong.payload).to.contain('role="alert">A key name is 1 to 100 characters.');
        expect(tooLong.payload).to.contain(`value="${'🌳'.repeat(101)}"`);
        expect((await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: `${'a'.repeat(100)}é`, resources: ['persons'], operations: ['read'] })).statusCode).to.equal(422);

        const created = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: '🌳'.repeat(100), resources: ['persons'], operations: ['read'] });
        expect(created.statusCode).to.equal(201);
        expect((await server.app.services.models.ApiKey.findAll({ where: { family_long_id: familyLongId } })).map((key) => key.name)).to.equal(['🌳'.repeat(100)]);

        // The CLI's `key create` calls the same service: the same rule.
        const key = (name: string) => createApiKey(server.app.services.accounts, { familyLongId, name, resources: ['persons'], createdBy: 'cli' });
        await expect(key('🌳'.repeat(100))).to.not.reject();
        await expect(key('🌳'.repeat(101))).to.reject('A key name is 1 to 100 characters.');
    });

    it('asks for at least one resource and one operation when a key form has none ticked, keeping the name', async () => {

        const { client } = await managerOf();
        await client.post('/manage/apis/enable', { resources: ['persons', 'trees'] });
        const noResource = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: 'Sync tool', operations: ['read'] });
        expect(noResource.statusCode).to.equal(422);
        expect(noResource.payload).to.contain('A key needs at least one resource: choose among those the family exposes (persons, trees).');
        expect(noResource.payload).to.contain('value="Sync tool"');

        const noOperation = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: 'Sync tool', resources: ['persons'] });
        expect(noOperation.statusCode).to.equal(422);
        expect(noOperation.payload).to.contain('A key needs at least one operation: choose among read,');
    });

    it('refuses a NUL character in a key name with a 400: the databases cannot store it alike', async () => {

        const { client, familyLongId } = await managerOf();
        await client.post('/manage/apis/enable', { resources: ['persons'] });
        const response = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: 'Sync\u0000tool', resources: ['persons'], operations: ['read'] });
        expect(response.statusCode).to.equal(400);
        expect(await server.app.services.models.ApiKey.count({ where: { family_long_id: familyLongId } })).to.equal(0);
    });

    it('changes a key\'s scopes, and a key from before write scopes can never gain them', async () => {

        const fixture = await familyWithKey(server, { predatesWriteScopes: true, resources: ['persons'] });
        const client = await signedIn(server, { role: 'manager', familyLongId: fixture.familyLongId });

        const page = await client.get(`/manage/apis/keys/${fixture.keyId}`);
        expect(page.payload).to.contain('Read-only legacy key');
        expect(page.payload).to.contain('name="operations" value="create" disabled');

        const refused = await client.post(`/manage/apis/keys/${fixture.keyId}/scopes`, { resources: ['persons'], operations: ['read', 'create'] });
        expect(refused.statusCode).to.equal(422);
        expect(refused.payload).to.contain('predates write scopes and can never gain create');
        expect((await fixture.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Lovelace' })).statusCode).to.equal(403);

        const narrowed = await client.post(`/manage/apis/keys/${fixture.keyId}/scopes`, { resources: ['persons'], operations: ['read'] });
        expect(narrowed.headers.location).to.equal('/manage/apis?notice=key-scopes-changed');
        expect((await fixture.inject('GET', '/api/v1/persons?sort=last_name')).statusCode).to.equal(403);
    });

    it('revokes a key after a confirmation, and the API refuses it at once', async () => {

        const fixture = await familyWithKey(server);
        const client = await signedIn(server, { role: 'manager', familyLongId: fixture.familyLongId });
        expect((await fixture.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);

        const confirm = await client.get(`/manage/apis/keys/${fixture.keyId}/revoke`);
        expect(confirm.payload).to.contain('Revoke this API key?');
        expect(confirm.payload).to.contain(`action="/manage/apis/keys/${fixture.keyId}/revoke"`);
        expect((await fixture.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);

        const revoked = await client.post(`/manage/apis/keys/${fixture.keyId}/revoke`);
        expect(revoked.headers.location).to.equal('/manage/apis?notice=key-revoked');
        const refused = await fixture.inject('GET', '/api/v1/persons');
        expect(refused.statusCode).to.equal(401);
        expect(refused.result).to.include({ code: 'invalid_key' });

        const overview = await client.get('/manage/apis');
        expect(overview.payload).to.contain('1 revoked key');
        expect((await client.get(`/manage/apis/keys/${fixture.keyId}/revoke`)).statusCode).to.equal(404);
    });

    it('answers a revoke form sent twice (a double click, a second tab) as the first time, recording it once', async () => {

        const fixture = await familyWithKey(server);
        const client = await signedIn(server, { role: 'manager', familyLongId: fixture.familyLongId });
        for (let sent = 0; sent < 2; ++sent) {
            const revoked = await client.post(`/manage/apis/keys/${fixture.keyId}/revoke`);
            expect(revoked.statusCode).to.equal(302);
            expect(revoked.headers.location).to.equal('/manage/apis?notice=key-revoked');
        }

        expect(await server.app.services.models.AuditEvent.count({ where: { target: fixture.keyId, action: 'api_key.revoke' } })).to.equal(1);

        const stranger = await signedIn(server, { role: 'manager', familyLongId: (await familyWithKey(server)).familyLongId });
        expect((await stranger.post(`/manage/apis/keys/${fixture.keyId}/revoke`)).statusCode).to.equal(404);
    });

    it('records one revocation of two revoke forms sent at the same time', async () => {

        const fixture = await familyWithKey(server);
        const client = await signedIn(server, { role: 'manager', familyLongId: fixture.familyLongId });
        const revoked = await Promise.all([client.post(`/manage/apis/keys/${fixture.keyId}/revoke`), client.post(`/manage/apis/keys/${fixture.keyId}/revoke`)]);

        expect(revoked.map((answer) => answer.headers.location)).to.equal(['/manage/apis?notice=key-revoked', '/manage/apis?notice=key-revoked']);
        expect(await server.app.services.models.AuditEvent.count({ where: { target: fixture.keyId, action: 'api_key.revoke' } })).to.equal(1);
    });

    it('gives user text the direction of its own text, so a Hebrew family or key name leaves the words around it in order', async () => {

        const family = await createFamily(server.app.services.accounts, { name: 'משפחת כהן', plan: 'family' });
        const client = await signedIn(server, { role: 'manager', familyLongId: family.family_long_id });
        await client.post('/manage/apis/enable', { resources: ['persons'] });
        expect((await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: 'סנכרון אילן', resources: ['persons'], operations: ['read'] })).statusCode).to.equal(201);
        const keyId = (await server.app.services.models.ApiKey.findOne({ where: { family_long_id: family.family_long_id } }))!.id;

        const overview = (await client.get('/manage/apis')).payload;
        expect(overview).to.contain('<p class="eyebrow">Manage · <bdi>משפחת כהן</bdi></p>');
        expect(overview).to.contain('<td><strong dir="auto">סנכרון אילן</strong>');
        expect(overview).to.contain(`<td class="muted" dir="auto">${client.account.email}</td>`);
        expect((await client.get(`/manage/apis/keys/${keyId}/revoke`)).payload).to.contain('<p><strong><bdi>סנכרון אילן</bdi></strong> ·');
        const keyPage = (await client.get(`/manage/apis/keys/${keyId}`)).payload;
        expect(keyPage).to.contain('<p class="muted"><strong><bdi>סנכרון אילן</bdi></strong> ·');
        // Where no markup can go, Unicode isolates do what <bdi> does.
        expect(keyPage).to.contain('<title>Key “\u2068סנכרון אילן\u2069” · Family Records</title>');

        const admin = await signedIn(server, { role: 'super-admin' });
        expect((await admin.get('/admin/apis?q=כהן')).payload).to.contain('<strong dir="auto">משפחת כהן</strong>');
        const familyPage = (await admin.get(`/admin/apis/families/${family.family_long_id}`)).payload;
        expect(familyPage).to.contain('<h1 dir="auto">משפחת כהן</h1>');
        expect(familyPage).to.contain('<title>\u2068משפחת כהן\u2069 · Usage · Family Records</title>');
        expect(familyPage).to.contain('API requests of \u2068משפחת כהן\u2069 per UTC day');
        expect((await admin.get(`/admin/audit?family=${family.family_long_id}&action=api_key.create`)).payload).to.contain('<td dir="auto">“סנכרון אילן”: persons / read / living persons full</td>');
    });

    it('renders hostile family and key names inert', async () => {

        const hostileFamily = '<script>alert("family")</script>';
        const hostileKey = '"><img src=x onerror=alert(1)>';
        const family = await createFamily(server.app.services.accounts, { name: hostileFamily, plan: 'family' });
        const client = await signedIn(server, { role: 'manager', familyLongId: family.family_long_id });
        await client.post('/manage/apis/enable', { resources: ['persons'] });
        const created = await client.postFrom('/manage/apis/keys/new', '/manage/apis/keys', { name: hostileKey, resources: ['persons'], operations: ['read'] });
        expect(created.statusCode).to.equal(201);

        const overview = (await client.get('/manage/apis')).payload;
        for (const page of [created.payload, overview]) {
            expect(page).to.not.contain('<script>alert');
            expect(page).to.not.contain('<img src=x');
            expect(page).to.contain('&quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;');
        }

        expect(overview).to.contain('&lt;script&gt;alert(&quot;family&quot;)&lt;/script&gt;');

        const admin = await signedIn(server, { role: 'super-admin' });
        for (const url of ['/admin/apis', `/admin/apis/families/${family.family_long_id}`, '/admin/audit']) {
            const page = (await admin.get(url)).payload;
            expect(page, url).to.not.contain('<script>alert');
            expect(page, url).to.not.contain('<img src=x');
        }
    });
});
