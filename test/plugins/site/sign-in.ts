import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily } from '../../../lib/accounts/families';
import { createUser } from '../../../lib/accounts/users';
import { copyPolicies, testServer } from '../../helpers/server';
import { appCode, formTokenOn, secretOn, signedIn, SiteClient, siteAccount } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('sign-in', () => {

    let server: Server;
    let familyLongId: string;

    before(async () => {

        // Small limits, so throttling shows within a few (slow, bcrypt) attempts; windows a day long instead of 15
        // minutes, and delays an hour long, so a test's attempts never straddle a window's clock-aligned end.
        const policiesDir = copyPolicies();
        const site = Path.join(policiesDir, 'site.yaml');
        const shipped = Fs.readFileSync(site, 'utf8');
        expect(shipped.match(/window_seconds: 900\b/g)).to.have.length(5);
        Fs.writeFileSync(site, shipped.replace('limit: 10', 'limit: 4').replace('limit: 100', 'limit: 6').replace(/window_seconds: 900\b/g, 'window_seconds: 86400')
            .replace('free_failures: 5', 'free_failures: 3').replace('first_delay_seconds: 1', 'first_delay_seconds: 3600').replace('max_delay_seconds: 900', 'max_delay_seconds: 86400'));
        server = await testServer({ policiesDir });
        familyLongId = (await createFamily(server.app.services.accounts, { name: 'Sign-in family', plan: 'family' })).family_long_id;
    });

    after(async () => {

        await server.stop();
    });

    it('signs a manager in with email and password and sends them where they were going', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const client = new SiteClient(server);
        const away = await client.get('/manage/apis/keys/new');
        expect(away.statusCode).to.equal(302);
        expect(away.headers.location).to.equal('/login?next=%2Fmanage%2Fapis%2Fkeys%2Fnew');

        const form = await client.get(away.headers.location as string);
        expect(form.statusCode).to.equal(200);
        expect(form.payload).to.contain('name="next" value="/manage/apis/keys/new"');

        const signIn = await client.post('/login', { email: email.toUpperCase(), password, next: '/manage/apis/keys/new' });
        expect(signIn.statusCode).to.equal(302);
        expect(signIn.headers.location).to.equal('/manage/apis/keys/new');
        const cookie = ([] as string[]).concat(signIn.headers['set-cookie'] ?? []).find((header) => header.startsWith('fr_session='))!;
        expect(cookie).to.contain('HttpOnly');
        expect(cookie).to.contain('SameSite=Lax');
        expect((await client.get('/manage/apis/keys/new')).statusCode).to.equal(200);
    });

    it('answers a wrong password and an unknown email with the same words', async () => {

        const { email } = await siteAccount(server, { role: 'manager', familyLongId });
        const wrongPassword = await (await new SiteClient(server).ready()).post('/login', { email, password: 'not-the-password' });
        const unknownEmail = await (await new SiteClient(server).ready()).post('/login', { email: `nobody-${Date.now()}@example.com`, password: 'not-the-password' });

        expect(wrongPassword.statusCode).to.equal(401);
        expect(unknownEmail.statusCode).to.equal(401);
        const message = (page: string) => /role="alert">([^<]+)</.exec(page)?.[1];
        expect(message(wrongPassword.payload)).to.equal(message(unknownEmail.payload));
        expect(wrongPassword.payload).to.contain(`value="${email}"`);
    });

    it('never redirects to another site after signing in', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        for (const next of ['//evil.example/x', '/\\evil.example', 'https://evil.example/']) {
            const signIn = await (await new SiteClient(server).ready()).post('/login', { email, password, next });
            expect(signIn.headers.location).to.equal('/manage/apis');
        }
    });

    it('never redirects a signed-in visitor to another site through a tab or newline in next', async () => {

        const client = await signedIn(server, { role: 'manager', familyLongId });
        // A browser drops tabs and newlines from a URL: `/<tab>/evil.example` is `//evil.example` to it.
        for (const next of ['/\t/evil.example/x', '/\n/evil.example/x', '/\r\\evil.example']) {
            const response = await client.get(`/login?next=${encodeURIComponent(next)}`);
            expect(response.statusCode).to.equal(302);
            expect(response.headers.location).to.equal('/manage/apis');
        }
    });

    it('sends any path of this site after signing in, percent-encoded rather than a 500', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const signIn = await (await new SiteClient(server).ready()).post('/login', { email, password, next: '/manage/apis?q=Łódź family#keys' });
        expect(signIn.statusCode).to.equal(302);
        expect(signIn.headers.location).to.equal('/manage/apis?q=%C5%81%C3%B3d%C5%BA%20family#keys');
    });

    it('lets a browser type no more into a field than the server takes, so a long entry is never a 400 page', async () => {

        const login = (await new SiteClient(server).get('/login')).payload;
        expect(login).to.contain('name="email" value="" maxlength="640"');
        expect(login).to.contain('name="password" maxlength="200"');

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const enrolling = await new SiteClient(server).ready();
        await enrolling.post('/login', { email, password });
        const setup = await enrolling.post('/account/two-factor/setup');
        expect(setup.payload).to.contain('name="code" maxlength="20"');
        await enrolling.post('/account/two-factor/confirm', { code: appCode(secretOn(setup.payload)), form_token: formTokenOn(setup.payload) });
        expect((await enrolling.get('/account/security')).payload).to.contain('name="password" maxlength="200"');

        const twoFactor = await new SiteClient(server).ready();
        await twoFactor.post('/login', { email, password });
        expect((await twoFactor.get('/login/two-factor')).payload).to.contain('name="code" maxlength="40"');
    });

    it('refuses a password longer than the 72 bytes bcrypt reads, though it has fewer characters', async () => {

        const create = (password: string) => createUser(server.app.services.accounts, { email: `bytes-${Buffer.byteLength(password)}-${familyLongId}@example.com`, password, role: 'manager', familyLongId });
        // Only the first 72 bytes would count: 40 × "é" is 80 bytes, so any password sharing the first 36 would sign in.
        await expect(create('é'.repeat(40))).to.reject('A password is 10 to 72 characters (72 bytes in UTF-8: fewer characters outside ASCII).');
        await expect(create('é'.repeat(36))).to.not.reject();
    });

    it('answers a NUL character in the email with a 400, not a 500', async () => {

        const client = await new SiteClient(server).ready();
        expect((await client.post('/login', { email: 'someone\u0000@example.com', password: 'a password' })).statusCode).to.equal(400);
    });

    it('after a form sent with an ended session, signs in back to the form\'s page, not its POST-only action', async () => {

        const client = await signedIn(server, { role: 'manager', familyLongId });
        await server.app.services.models.SiteSession.update({ expires_at: new Date(Date.now() - 1000) }, { where: { user_id: client.account.user.id } });
        const cookie = `fr_session=${client.cookies.get('fr_session')}`;
        const sent = await server.inject({ method: 'POST', url: '/manage/apis/keys', headers: { cookie, host: 'records.example', referer: 'https://records.example/manage/apis/keys/new' } });
        expect(sent.statusCode).to.equal(302);
        expect(sent.headers.location).to.equal('/login?next=%2Fmanage%2Fapis%2Fkeys%2Fnew');

        const elsewhere = await server.inject({ method: 'POST', url: '/manage/apis/keys', headers: { cookie, host: 'records.example', referer: 'https://evil.example/manage/apis/keys/new' } });
        expect(elsewhere.headers.location).to.equal('/login');
        expect((await server.inject({ method: 'POST', url: '/manage/apis/keys' })).headers.location).to.equal('/login');
    });

    it('refuses a sign-in form without its CSRF token', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const client = await new SiteClient(server).ready();
        const response = await client.post('/login', { email, password }, { crumb: false });
        expect(response.statusCode).to.equal(403);
        expect(client.cookies.has('fr_session')).to.be.false();
    });

    it('refuses an account to unknown browsers after as many failures from them as its limit, even with the right password', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const limit = server.app.services.policyStore.current().site.sign_in_throttle.per_account.limit;
        for (let attempt = 0; attempt < limit; ++attempt) {
            // A new address each time: the account's own limit is what stops the last attempt.
            expect((await (await new SiteClient(server).ready()).post('/login', { email, password: 'wrong password' })).statusCode).to.equal(401);
        }

        const blocked = await (await new SiteClient(server).ready()).post('/login', { email, password });
        expect(blocked.statusCode).to.equal(401);
        expect(blocked.payload).to.contain('too many attempts');
    });

    it('counts failures only: more right sign-ins than any limit all succeed, from one address', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const { per_account: account, per_ip: ip } = server.app.services.policyStore.current().site.sign_in_throttle;
        const address = new SiteClient(server).remoteAddress;
        for (let attempt = 0; attempt <= Math.max(account.limit, ip.limit); ++attempt) {
            expect((await (await new SiteClient(server, address).ready()).post('/login', { email, password })).statusCode).to.equal(302);
        }
    });

    it('keeps signing a user in from a browser they signed in from, whatever failures others make on the account', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const own = await new SiteClient(server).ready();
        expect((await own.post('/login', { email, password })).statusCode).to.equal(302);
        expect(own.cookies.has('fr_device')).to.be.true();
        expect((await own.post('/logout')).statusCode).to.equal(302);

        const limit = server.app.services.policyStore.current().site.sign_in_throttle.per_account.limit;
        for (let attempt = 0; attempt <= limit; ++attempt) {
            await (await new SiteClient(server).ready()).post('/login', { email, password: `guess ${attempt}` });
        }

        expect((await (await new SiteClient(server).ready()).post('/login', { email, password })).statusCode).to.equal(401);
        expect((await (await own.ready()).post('/login', { email, password })).statusCode).to.equal(302);
        // Another browser at the user's own address is not the user's browser.
        expect((await (await new SiteClient(server, own.remoteAddress).ready()).post('/login', { email, password })).statusCode).to.equal(401);
    });

    it('makes one address wait after its free failures on one account, known browser or not', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const own = await new SiteClient(server).ready();
        expect((await own.post('/login', { email, password })).statusCode).to.equal(302);

        const { free_failures: free } = server.app.services.policyStore.current().site.sign_in_throttle.per_account_and_address;
        for (let attempt = 0; attempt < free; ++attempt) {
            expect((await own.post('/login', { email, password: `guess ${attempt}` })).statusCode).to.equal(401);
        }

        const paused = await own.post('/login', { email, password });
        expect(paused.statusCode).to.equal(401);
        expect(paused.payload).to.contain('too many attempts');
        // Another address is not held up by this one's failures.
        expect((await (await new SiteClient(server).ready()).post('/login', { email, password })).statusCode).to.equal(302);
    });

    it('gives the browser a new CSRF token at sign-in, and refuses the one from before', async () => {

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const client = await new SiteClient(server).ready();
        const before = client.cookies.get('crumb')!;
        expect((await client.post('/login', { email, password })).statusCode).to.equal(302);
        const after = client.cookies.get('crumb')!;
        expect(after).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect(after).to.not.equal(before);

        client.cookies.set('crumb', after);
        expect((await client.post('/logout', { crumb: before })).statusCode).to.equal(403);
        expect((await client.post('/logout')).statusCode).to.equal(302);
    });

    it('throttles sign-in attempts per client address across accounts', async () => {

        const client = await new SiteClient(server).ready();
        const limit = server.app.services.policyStore.current().site.sign_in_throttle.per_ip.limit;
        for (let attempt = 0; attempt < limit; ++attempt) {
            await client.post('/login', { email: `guess-${attempt}@example.com`, password: 'guess' });
        }

        const { email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        expect((await client.post('/login', { email, password })).statusCode).to.equal(401);
        expect((await (await new SiteClient(server).ready()).post('/login', { email, password })).statusCode).to.equal(302);
    });

    it('signs out for good: the old cookie no longer signs anyone in', async () => {

        const client = await signedIn(server, { role: 'manager', familyLongId });
        const copied = client.cookies.get('fr_session')!;
        const signOut = await client.post('/logout');
        expect(signOut.statusCode).to.equal(302);
        expect(signOut.headers.location).to.equal('/login?notice=signed-out');

        const replay = new SiteClient(server);
        replay.cookies.set('fr_session', copied);
        const response = await replay.get('/manage/apis');
        expect(response.statusCode).to.equal(302);
        expect(response.headers.location).to.match(/^\/login/);
    });

    it('asks for confirmation before signing out from a link', async () => {

        const client = await signedIn(server, { role: 'member', familyLongId });
        const page = await client.get('/logout');
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('action="/logout"');
        expect((await new SiteClient(server).get('/logout')).headers.location).to.equal('/login');
    });

    it('sends each role to its start page', async () => {

        expect((await (await signedIn(server, { role: 'manager', familyLongId })).get('/')).headers.location).to.equal('/manage/apis');
        expect((await (await signedIn(server, { role: 'super-admin' })).get('/')).headers.location).to.equal('/admin/apis');
        expect((await (await signedIn(server, { role: 'member', familyLongId })).get('/')).headers.location).to.equal('/account/security');
        expect((await new SiteClient(server).get('/')).headers.location).to.equal('/login');
    });

    describe('with two-factor codes', () => {

        /** A manager who turned two-factor sign-in on; returns the secret and recovery codes shown. */
        async function enrolled() {

            const client = await signedIn(server, { role: 'manager', familyLongId });
            const setup = await client.post('/account/two-factor/setup');
            expect(setup.statusCode).to.equal(200);
            expect(setup.payload).to.contain('<svg');
            const secret = secretOn(setup.payload);

            const wrong = await client.post('/account/two-factor/confirm', { code: appCode(secret) === '000000' ? '111111' : '000000', form_token: formTokenOn(setup.payload) });
            expect(wrong.statusCode).to.equal(422);
            expect(secretOn(wrong.payload)).to.equal(secret);

            const confirmed = await client.post('/account/two-factor/confirm', { code: appCode(secret), form_token: formTokenOn(wrong.payload) });
            expect(confirmed.statusCode).to.equal(200);
            const recoveryCodes = [...confirmed.payload.matchAll(/<li><code>([a-z0-9]{5}-[a-z0-9]{5})<\/code><\/li>/g)].map((match) => match[1]);
            expect(recoveryCodes).to.have.length(10);
            return { ...client.account, client, secret, recoveryCodes };
        }

        it('asks for the code after the password, and the password alone signs nobody in', async () => {

            const { email, password, secret } = await enrolled();
            const client = await new SiteClient(server).ready();
            const afterPassword = await client.post('/login', { email, password, next: '/manage/apis' });
            expect(afterPassword.headers.location).to.equal('/login/two-factor?next=%2Fmanage%2Fapis');
            expect(client.cookies.has('fr_session')).to.be.false();
            expect((await client.get('/manage/apis')).statusCode).to.equal(302);

            expect((await client.get('/login/two-factor')).statusCode).to.equal(200);
            const wrong = await client.post('/login/two-factor', { code: '12345' });
            expect(wrong.statusCode).to.equal(401);

            // The code that turned it on was taken: the app's next one (the window takes a step either way).
            const right = await client.post('/login/two-factor', { code: appCode(secret, 1), next: '/manage/apis' });
            expect(right.headers.location).to.equal('/manage/apis');
            expect(client.cookies.has('fr_two_factor')).to.be.false();
            expect((await client.get('/manage/apis')).statusCode).to.equal(200);
        });

        it('takes each recovery code once', async () => {

            const { email, password, recoveryCodes } = await enrolled();
            const signInWith = async (code: string) => {

                const client = await new SiteClient(server).ready();
                await client.post('/login', { email, password });
                return client.post('/login/two-factor', { code: code.toUpperCase() });
            };

            expect((await signInWith(recoveryCodes[0])).statusCode).to.equal(302);
            expect((await signInWith(recoveryCodes[0])).statusCode).to.equal(401);
            const events = await server.app.services.models.AuditEvent.findAll({ where: { actor_email: email, action: 'two_factor.recovery_code_used' } });
            expect(events).to.have.length(1);
        });

        it('sends a two-factor page without a pending sign-in back to the password', async () => {

            const client = await new SiteClient(server).ready();
            expect((await client.get('/login/two-factor')).headers.location).to.equal('/login');
            expect((await client.post('/login/two-factor', { code: '123456' })).headers.location).to.equal('/login');
        });

        it('shows the same secret when the setup form is sent again (a double click, a reload, a second tab), so the code scanned first turns it on', async () => {

            const client = await signedIn(server, { role: 'manager', familyLongId });
            const first = secretOn((await client.post('/account/two-factor/setup')).payload);
            const again = await client.post('/account/two-factor/setup');
            expect(secretOn(again.payload)).to.equal(first);

            const confirmed = await client.post('/account/two-factor/confirm', { code: appCode(first), form_token: formTokenOn(again.payload) });
            expect(confirmed.statusCode).to.equal(200);
            expect(confirmed.payload).to.contain('Save your recovery codes');
        });

        it('throttles the password that turns two-factor sign-in off as sign-in is: a stolen session cannot guess it', async () => {

            const { client, email, password } = await enrolled();
            const limit = server.app.services.policyStore.current().site.sign_in_throttle.per_account.limit;
            for (let attempt = 0; attempt < limit; ++attempt) {
                expect((await client.post('/account/two-factor/disable', { password: `guess ${attempt}` })).statusCode).to.equal(422);
            }

            const blocked = await client.post('/account/two-factor/disable', { password });
            expect(blocked.statusCode).to.equal(422);
            expect(blocked.payload).to.contain('too many attempts');
            const user = (await server.app.services.models.User.findOne({ where: { email } }))!;
            expect(user.totp_enabled_at).to.be.a.date();
        });

        it('keeps the secret sealed, and turns two-factor sign-in off only with the password', async () => {

            const { client, email, password } = await enrolled();
            const { User } = server.app.services.models;
            const user = (await User.findOne({ where: { email } }))!;
            expect(user.totp_enabled_at).to.be.a.date();
            expect(user.totp_secret).to.match(/^v1\./);
            expect(user.recovery_code_hashes!.every((hash) => /^[0-9a-f]{64}$/.test(hash))).to.be.true();

            expect((await client.post('/account/two-factor/disable', { password: 'not the password' })).statusCode).to.equal(422);
            const off = await client.post('/account/two-factor/disable', { password });
            expect(off.headers.location).to.equal('/account/security?notice=two-factor-off');
            await user.reload();
            expect(user.totp_enabled_at).to.be.null();
            expect(user.totp_secret).to.be.null();
        });
    });
});
