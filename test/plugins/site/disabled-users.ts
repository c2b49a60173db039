import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily } from '../../../lib/accounts/families';
import { setUserDisabled } from '../../../lib/accounts/users';
import { testServer } from '../../helpers/server';
import { appCode, formTokenOn, secretOn, signedIn, SiteClient, siteAccount } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const disabledMessage = 'role="alert">This account is disabled. Ask the service&#x27;s operator to enable it again.';
const failedMessage = 'role="alert">Incorrect email or password, or too many attempts. Try again in a few minutes.';

describe('the site and disabled users', () => {

    let server: Server;
    let familyLongId: string;

    before(async () => {

        server = await testServer();
        familyLongId = (await createFamily(server.app.services.accounts, { name: 'Disabled family', plan: 'family' })).family_long_id;
    });

    after(() => server.stop());

    const sessionsOf = (userId: string) => server.app.services.models.SiteSession.count({ where: { user_id: userId } });
    const signInsOf = (userId: string) => server.app.services.models.AuditEvent.count({ where: { actor_id: userId, action: 'session.sign_in' } });

    it('refuses a disabled user\'s sign-in with a clear message only once the password is right, starting no session', async () => {

        const account = await siteAccount(server, { role: 'member', familyLongId });
        await setUserDisabled(server.app.services.accounts, account.user.id, true);

        const client = await new SiteClient(server).ready();
        const wrong = await client.post('/login', { email: account.email, password: 'not the password' });
        expect(wrong.statusCode).to.equal(401);
        expect(wrong.payload).to.contain(failedMessage);
        expect(wrong.payload).to.not.contain('disabled');

        const right = await client.post('/login', { email: account.email, password: account.password });
        expect(right.statusCode).to.equal(403);
        expect(right.payload).to.contain(disabledMessage);
        expect([...client.cookies.keys()].filter((name) => name.includes('session'))).to.equal([]);
        expect(await sessionsOf(account.user.id)).to.equal(0);
        expect(await signInsOf(account.user.id)).to.equal(0);
        expect((await client.get('/account/security')).headers.location).to.equal('/login?next=%2Faccount%2Fsecurity');

        await setUserDisabled(server.app.services.accounts, account.user.id, false);
        const enabled = await client.post('/login', { email: account.email, password: account.password });
        expect(enabled.statusCode).to.equal(302);
        expect((await client.get('/account/security')).statusCode).to.equal(200);
    });

    it('ends a disabled user\'s sessions at their next request, and enabling them again brings none back', async () => {

        const client = await signedIn(server, { role: 'manager', familyLongId });
        const elsewhere = new SiteClient(server);
        for (const [name, value] of client.cookies) {
            elsewhere.cookies.set(name, value);          // the same session, copied to another browser
        }

        expect((await client.get('/manage/apis')).statusCode).to.equal(200);
        expect(await sessionsOf(client.account.user.id)).to.equal(1);

        await setUserDisabled(server.app.services.accounts, client.account.user.id, true);
        const next = await client.get('/manage/apis');
        expect(next.statusCode).to.equal(302);
        expect(next.headers.location).to.equal('/login?next=%2Fmanage%2Fapis');
        expect(await sessionsOf(client.account.user.id)).to.equal(0);

        await setUserDisabled(server.app.services.accounts, client.account.user.id, false);
        expect((await elsewhere.get('/manage/apis')).statusCode).to.equal(302);
    });

    it('refuses a session whose user is disabled even while the session itself is still stored', async () => {

        const client = await signedIn(server, { role: 'member', familyLongId });
        // Marked disabled in the database without the service (another instance's, half done): the session row is still there.
        await server.app.services.models.User.update({ disabled_at: new Date() }, { where: { id: client.account.user.id } });
        expect(await sessionsOf(client.account.user.id)).to.equal(1);
        expect((await client.get('/account/security')).headers.location).to.equal('/login?next=%2Faccount%2Fsecurity');
        expect((await client.post('/logout')).headers.location).to.equal('/login?notice=signed-out');
    });

    it('with two-factor sign-in, asks for the code as for everyone, then refuses a disabled user with the same message', async () => {

        const enrolling = await signedIn(server, { role: 'manager', familyLongId });
        const setup = await enrolling.post('/account/two-factor/setup');
        const secret = secretOn(setup.payload);
        expect((await enrolling.post('/account/two-factor/confirm', { code: appCode(secret), form_token: formTokenOn(setup.payload) })).statusCode).to.equal(200);
        await setUserDisabled(server.app.services.accounts, enrolling.account.user.id, true);

        const client = await new SiteClient(server).ready();
        const password = await client.post('/login', { email: enrolling.account.email, password: enrolling.account.password });
        expect(password.headers.location).to.equal('/login/two-factor');
        const code = await client.post('/login/two-factor', { code: appCode(secret, 1) });
        expect(code.statusCode).to.equal(403);
        expect(code.payload).to.contain(disabledMessage);
        expect(await sessionsOf(enrolling.account.user.id)).to.equal(0);
    });
});
