import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createApiKey } from '../../../lib/accounts/api-keys';
import { assertPagesSignedIn } from '../../../plugins/site/route-auth';
import { allResources, familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { signedIn, siteSessionServer, SiteClient } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('hosted site authorisation', () => {

    let server: Server;
    let family: FamilyFixture;
    let other: FamilyFixture;
    let otherKeyId: string;

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        other = await familyWithKey(server);
        otherKeyId = (await createApiKey(server.app.services.accounts, { familyLongId: other.familyLongId, name: 'Other family secret key', resources: allResources, createdBy: 'test' })).apiKey.id;
    });

    after(async () => {

        await server.stop();
    });

    const managerPages = () => ['/manage/apis', '/manage/apis/keys/new', `/manage/apis/keys/${family.keyId}`, `/manage/apis/keys/${family.keyId}/revoke`, '/manage/apis/webhooks/new'];
    const adminPages = () => ['/admin/apis', `/admin/apis/families/${family.familyLongId}`, `/admin/apis/keys/${family.keyId}/revoke`, '/admin/audit'];

    it('sends anonymous visitors of every page behind sign-in to /login, with the way back', async () => {

        const anonymous = new SiteClient(server);
        for (const page of [...managerPages(), ...adminPages(), '/account/security']) {
            const response = await anonymous.get(page);
            expect(response.statusCode, page).to.equal(302);
            expect(response.headers.location, page).to.equal(`/login?next=${encodeURIComponent(page)}`);
        }
    });

    it('lets a manager into their own family\'s pages, and not into the admin area', async () => {

        const manager = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        for (const page of managerPages()) {
            expect((await manager.get(page)).statusCode, page).to.equal(200);
        }

        for (const page of adminPages()) {
            const response = await manager.get(page);
            expect(response.statusCode, page).to.equal(403);
            expect(response.headers['content-type']).to.contain('text/html');
        }
    });

    it('treats a member as no manager', async () => {

        const member = await signedIn(server, { role: 'member', familyLongId: family.familyLongId });
        expect((await member.get('/account/security')).statusCode).to.equal(200);
        for (const page of [...managerPages(), ...adminPages()]) {
            expect((await member.get(page)).statusCode, page).to.equal(403);
        }

        expect((await member.post('/manage/apis/disable')).statusCode).to.equal(403);
        expect((await server.app.services.models.Family.findByPk(family.familyLongId))!.api_enabled).to.be.true();
    });

    it('lets only super-admins into the admin area, and not into a family\'s Manage pages', async () => {

        const admin = await signedIn(server, { role: 'super-admin' });
        for (const page of adminPages()) {
            expect((await admin.get(page)).statusCode, page).to.equal(200);
        }

        expect((await admin.get('/manage/apis')).statusCode).to.equal(403);
    });

    it('never shows or changes another family\'s keys: their ids are unknown here', async () => {

        const manager = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const overview = await manager.get('/manage/apis');
        expect(overview.payload).to.not.contain('Other family secret key');
        expect(overview.payload).to.not.contain(otherKeyId);

        expect((await manager.get(`/manage/apis/keys/${otherKeyId}`)).statusCode).to.equal(404);
        expect((await manager.get(`/manage/apis/keys/${otherKeyId}/revoke`)).statusCode).to.equal(404);
        expect((await manager.post(`/manage/apis/keys/${otherKeyId}/revoke`)).statusCode).to.equal(404);
        expect((await manager.post(`/manage/apis/keys/${otherKeyId}/scopes`, { resources: ['persons'], operations: ['read', 'delete'] })).statusCode).to.equal(404);

        const key = await server.app.services.models.ApiKey.findByPk(otherKeyId);
        expect(key!.revoked_at).to.be.null();
        expect(key!.operation_scopes).to.not.include('delete');
        expect((await other.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);
    });

    it('refuses every form of the site sent without its CSRF token', async () => {

        const manager = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const admin = await signedIn(server, { role: 'super-admin' });
        const posts = server.table().filter((route) => route.method === 'post' && route.realm.plugin === 'site');
        expect(posts.length).to.be.above(15);

        for (const route of posts) {
            const path = route.path.replace('{id}', route.path.startsWith('/admin/apis/families') ? family.familyLongId : family.keyId).replace(/\{\w+\}/g, 'whd_aaaaaaaaaaaaaaaaaaaa');
            const client = route.path.startsWith('/admin') ? admin : manager;
            const response = await client.post(path, {}, { crumb: false });
            expect(response.statusCode, `POST ${route.path}`).to.equal(403);
        }

        expect((await server.app.services.models.Family.findByPk(family.familyLongId))!.api_enabled).to.be.true();
        expect((await family.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);
    });

    it('refuses a form whose token belongs to another browser', async () => {

        const manager = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const attacker = await new SiteClient(server).ready();
        const response = await manager.post('/manage/apis/disable', { crumb: attacker.cookies.get('crumb')! }, { crumb: false });
        expect(response.statusCode).to.equal(403);
    });

    it('sends security headers with every page', async () => {

        const response = await new SiteClient(server).get('/login');
        expect(response.headers['content-security-policy']).to.contain("script-src 'self'");
        expect(response.headers['content-security-policy']).to.contain("frame-ancestors 'none'");
        expect(response.headers['x-frame-options']).to.equal('DENY');
        expect(response.headers['x-content-type-options']).to.equal('nosniff');
        expect(response.headers['referrer-policy']).to.equal('same-origin');
        expect(response.headers['cache-control']).to.equal('no-store');
    });

    it('leaves the API alone: no CSRF token, cookie or page headers on API answers', async () => {

        const response = await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Lovelace' });
        expect(response.statusCode).to.equal(201);
        expect(response.headers['set-cookie']).to.not.exist();
        expect(response.headers['content-security-policy']).to.not.exist();
    });
});

describe('assertPagesSignedIn()', () => {

    const handler = () => 'ok';

    it('refuses a page under /manage that anyone could open', async () => {

        const server = siteSessionServer({ method: 'GET', path: '/manage/open', options: { auth: false, handler } });
        expect(() => assertPagesSignedIn(server)).to.throw(/GET \/manage\/open must require auth strategy 'site-session'/);
    });

    it('refuses a device approval page that does not require a full session', async () => {

        const server = siteSessionServer({
            method: 'POST',
            path: '/device/approve',
            options: { auth: { strategy: 'site-session', mode: 'try' }, handler }
        });
        expect(() => assertPagesSignedIn(server)).to.throw(/POST \/device\/approve must require auth strategy 'site-session'/);
    });

    it('refuses a page under /admin that any signed-in user could open', async () => {

        const server = siteSessionServer({ method: 'POST', path: '/admin/thing', options: { auth: { strategy: 'site-session' }, handler } });
        expect(() => assertPagesSignedIn(server)).to.throw(/POST \/admin\/thing must restrict auth.access.scope/);
    });

    it('accepts signed-in pages with a role', async () => {

        const server = siteSessionServer({
            method: 'GET',
            path: '/admin/thing',
            options: { auth: { strategy: 'site-session', access: { scope: ['super-admin'] } }, handler }
        });
        expect(() => assertPagesSignedIn(server)).to.not.throw();
    });
});
