import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { connectedDevice, getMe } from '../../helpers/devices';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { cookieHeader, formBody, keepCookies, siteAccount, type Form } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

interface Answer {
    statusCode: number;
    location: string | null;
    payload: string;
}

/** A browser reaching the listening server over real HTTP on loopback: keeps cookies, sends forms with the CSRF token. */
class Browser {

    readonly cookies = new Map<string, string>();

    constructor(private readonly server: Server) {}

    get(path: string): Promise<Answer> {

        return this.send('GET', path);
    }

    post(path: string, form: Form = {}): Promise<Answer> {

        return this.send('POST', path, { crumb: this.cookies.get('crumb') ?? '', ...form });
    }

    async signIn(email: string, password: string): Promise<Answer> {

        await this.get('/login');
        return this.post('/login', { email, password });
    }

    private async send(method: string, path: string, form?: Form): Promise<Answer> {

        const headers: Record<string, string> = {};
        if (this.cookies.size > 0) {
            headers.cookie = cookieHeader(this.cookies);
        }

        if (form) {
            headers['content-type'] = 'application/x-www-form-urlencoded';
        }

        const response = await fetch(`${this.server.info.uri}${path}`, { method, headers, body: form && formBody(form), redirect: 'manual' });
        keepCookies(this.cookies, response.headers.getSetCookie());
        return { statusCode: response.status, location: response.headers.get('location'), payload: await response.text() };
    }
}

describe('Super-admin > a family\'s messaging and users, over HTTP', () => {

    let server: Server;
    let admin: Browser;
    let adminId: string;
    let adminEmail: string;

    before(async () => {

        server = await testServer({ env: { PORT: '0', HOST: '127.0.0.1' } });
        await server.start();
        const account = await siteAccount(server, { role: 'super-admin' });
        admin = new Browser(server);
        expect((await admin.signIn(account.email, account.password)).statusCode).to.equal(302);
        adminId = account.user.id;
        adminEmail = account.email;
    });

    after(() => server.stop());

    /** A family with an API key, and a member of it signed in on the site with a connected device. */
    async function familyWithMember(): Promise<{ family: FamilyFixture; member: Awaited<ReturnType<typeof siteAccount>>; browser: Browser; accessToken: string }> {

        const family = await familyWithKey(server);
        const member = await siteAccount(server, { role: 'member', familyLongId: family.familyLongId });
        const browser = new Browser(server);
        expect((await browser.signIn(member.email, member.password)).statusCode).to.equal(302);
        const { access_token: accessToken } = await connectedDevice(server, member.user);
        return { family, member, browser, accessToken };
    }

    const auditOf = (familyLongId: string) => server.app.services.models.AuditEvent.findAll({ where: { family_long_id: familyLongId }, order: [['id', 'ASC']] });

    it('suspends a family\'s messaging with a reason, escaped, refusing its devices at once while its API keys go on, and restores it', async () => {

        const { family, accessToken } = await familyWithMember();
        const base = `/admin/apis/families/${family.familyLongId}`;
        const before = await admin.get(base);
        expect(before.payload).to.contain('Messaging <span class="badge badge-success">On</span>');
        expect(before.payload).to.contain(`action="${base}/messaging/suspend"`);

        const suspended = await admin.post(`${base}/messaging/suspend`, { reason: 'Spam <script>alert(1)</script>' });
        expect(suspended.statusCode).to.equal(302);
        expect(suspended.location).to.equal(`${base}?notice=messaging-suspended`);
        const page = await admin.get(suspended.location!);
        expect(page.payload).to.contain('<div class="flash flash-success" role="status">The family&#x27;s messaging is suspended');
        expect(page.payload).to.contain(`Messaging suspended since`);
        expect(page.payload).to.contain(`by <bdi>${adminEmail}</bdi>. Reason shown to the family: <bdi>Spam &lt;script&gt;alert(1)&lt;/script&gt;</bdi>`);
        expect(page.payload).to.not.contain('<script>alert(1)');
        expect(page.payload).to.contain(`action="${base}/messaging/restore"`);

        const list = await admin.get(`/admin/apis?q=${family.familyLongId}`);
        expect(list.payload).to.contain('<span class="badge badge-danger">Messaging suspended</span>');

        const refused = await getMe(server, accessToken);
        expect(refused.statusCode).to.equal(403);
        expect(refused.result).to.include({ code: 'messaging_suspended' });
        expect((await family.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);

        // Sent again (another tab): the first suspension stands, and nothing more is recorded.
        const again = await admin.post(`${base}/messaging/suspend`, { reason: 'Another reason' });
        expect(again.location).to.equal(`${base}?notice=messaging-already-suspended`);
        expect((await admin.get(again.location!)).payload).to.contain('<div class="flash flash-info" role="status">The family&#x27;s messaging was already suspended');
        expect((await server.app.services.models.Family.findByPk(family.familyLongId))!.toJSON()).to.include({ messaging_suspension_reason: 'Spam <script>alert(1)</script>', messaging_suspended_by: adminId });

        const restored = await admin.post(`${base}/messaging/restore`);
        expect(restored.location).to.equal(`${base}?notice=messaging-restored`);
        expect((await admin.get(restored.location!)).payload).to.contain('Messaging <span class="badge badge-success">On</span>');
        expect((await getMe(server, accessToken)).statusCode).to.equal(200);
        expect((await admin.post(`${base}/messaging/restore`)).location).to.equal(`${base}?notice=messaging-not-suspended`);

        const events = (await auditOf(family.familyLongId)).filter((event) => event.action.startsWith('family.'));
        expect(events.map((event) => [event.action, event.detail, event.actor_email])).to.equal([
            ['family.suspend_messaging', 'Spam <script>alert(1)</script>', adminEmail],
            ['family.restore_messaging', null, adminEmail]
        ]);
        expect(events[0].ip).to.equal('127.0.0.1');
    });

    it('refuses a suspension of messaging without a reason, or with a reason too long, in words on the page', async () => {

        const family = await familyWithKey(server);
        const base = `/admin/apis/families/${family.familyLongId}`;
        const empty = await admin.post(`${base}/messaging/suspend`, { reason: '  ' });
        expect(empty.statusCode).to.equal(422);
        expect(empty.payload).to.contain('role="alert">Give a reason for the suspension');
        const long = await admin.post(`${base}/messaging/suspend`, { reason: 'x'.repeat(501) });
        expect(long.statusCode).to.equal(422);
        expect(long.payload).to.contain('role="alert">A suspension reason is at most 500 characters.');
        expect((await server.app.services.models.Family.findByPk(family.familyLongId))!.messaging_suspended_at).to.be.null();
    });

    it('disables a user of the family: signed out at their next request, unable to sign in, their device refused; enabling lets them sign in again', async () => {

        const { family, member, browser, accessToken } = await familyWithMember();
        const base = `/admin/apis/families/${family.familyLongId}`;
        const page = await admin.get(base);
        expect(page.payload).to.contain(`<tr data-user-id="${member.user.id}">`);
        expect(page.payload).to.contain(`action="${base}/users/${member.user.id}/disable"`);
        expect((await browser.get('/account/security')).statusCode).to.equal(200);

        const disabled = await admin.post(`${base}/users/${member.user.id}/disable`);
        expect(disabled.location).to.equal(`${base}?notice=user-disabled`);
        const after = await admin.get(disabled.location!);
        expect(after.payload).to.contain('<span class="badge badge-danger">Disabled</span>');
        expect(after.payload).to.contain(`action="${base}/users/${member.user.id}/enable"`);

        const signedOut = await browser.get('/account/security');
        expect(signedOut.statusCode).to.equal(302);
        expect(signedOut.location).to.equal('/login?next=%2Faccount%2Fsecurity');
        expect((await getMe(server, accessToken)).result).to.include({ code: 'account_disabled' });
        const signIn = await new Browser(server).signIn(member.email, member.password);
        expect(signIn.statusCode).to.equal(403);
        expect(signIn.payload).to.contain('role="alert">This account is disabled. Ask the service&#x27;s operator to enable it again.');

        expect((await admin.post(`${base}/users/${member.user.id}/disable`)).location).to.equal(`${base}?notice=user-already-disabled`);
        const enabled = await admin.post(`${base}/users/${member.user.id}/enable`);
        expect(enabled.location).to.equal(`${base}?notice=user-enabled`);
        expect((await admin.post(`${base}/users/${member.user.id}/enable`)).location).to.equal(`${base}?notice=user-not-disabled`);
        // The session that was ended stays ended; a new sign-in works.
        expect((await browser.get('/account/security')).statusCode).to.equal(302);
        expect((await new Browser(server).signIn(member.email, member.password)).statusCode).to.equal(302);
        expect((await getMe(server, accessToken)).statusCode).to.equal(200);

        const events = (await auditOf(family.familyLongId)).filter((event) => event.action.startsWith('user.'));
        expect(events.map((event) => [event.action, event.target, event.detail, event.actor_email])).to.equal([
            ['user.disable', member.user.id, member.email, adminEmail],
            ['user.enable', member.user.id, member.email, adminEmail]
        ]);
    });

    it('finds no user of another family under a family\'s page (404), and refuses to disable the super-admin\'s own account', async () => {

        const { member } = await familyWithMember();
        const other = await familyWithKey(server);
        const crossed = await admin.post(`/admin/apis/families/${other.familyLongId}/users/${member.user.id}/disable`);
        expect(crossed.statusCode).to.equal(404);
        expect((await server.app.services.models.User.findByPk(member.user.id))!.disabled_at).to.be.null();

        // A super-admin who is also in a family sees themselves there, without a Disable button, and the route refuses.
        await server.app.services.models.User.update({ family_long_id: other.familyLongId }, { where: { id: adminId } });
        try {
            const page = await admin.get(`/admin/apis/families/${other.familyLongId}`);
            expect(page.payload).to.contain('<span class="muted small">(you)</span>');
            expect(page.payload).to.not.contain(`/users/${adminId}/disable`);
            const own = await admin.post(`/admin/apis/families/${other.familyLongId}/users/${adminId}/disable`);
            expect(own.statusCode).to.equal(422);
            expect(own.payload).to.contain('role="alert">You cannot disable your own account');
            expect((await server.app.services.models.User.findByPk(adminId))!.disabled_at).to.be.null();
        }
        finally {
            await server.app.services.models.User.update({ family_long_id: null }, { where: { id: adminId } });
        }
    });

    it('refuses these forms to a member, and without the CSRF token', async () => {

        const { family, member, browser } = await familyWithMember();
        const base = `/admin/apis/families/${family.familyLongId}`;
        expect((await browser.post(`${base}/messaging/suspend`, { reason: 'Mine now' })).statusCode).to.equal(403);
        expect((await browser.post(`${base}/users/${member.user.id}/disable`)).statusCode).to.equal(403);
        expect((await admin.post(`${base}/users/${member.user.id}/disable`, { crumb: 'forged' })).statusCode).to.equal(403);
        expect((await admin.post(`${base}/messaging/suspend`, { reason: 'Spam', crumb: 'forged' })).statusCode).to.equal(403);
        expect((await server.app.services.models.Family.findByPk(family.familyLongId))!.messaging_suspended_at).to.be.null();
        expect((await server.app.services.models.User.findByPk(member.user.id))!.disabled_at).to.be.null();
    });
});
