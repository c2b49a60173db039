import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily } from '../../../lib/accounts/families';
import { testServer, testVariant } from '../../helpers/server';
import { appCode, formTokenOn, secretOn, signedIn, SiteClient } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`two-factor codes on ${testVariant}`, () => {

    let server: Server;
    let familyLongId: string;

    before(async () => {

        server = await testServer();
        familyLongId = (await createFamily(server.app.services.accounts, { name: 'Two-factor family', plan: 'family' })).family_long_id;
    });

    after(async () => {

        await server.stop();
    });

    /** A manager who turned two-factor sign-in on with the code of the current period. */
    async function enrolled() {

        const client = await signedIn(server, { role: 'manager', familyLongId });
        const setup = await client.post('/account/two-factor/setup');
        const secret = secretOn(setup.payload);
        const enrolment = { code: appCode(secret), form_token: formTokenOn(setup.payload) };
        const confirmed = await client.post('/account/two-factor/confirm', enrolment);
        expect(confirmed.statusCode).to.equal(200);
        return { client, secret, enrolment, confirmed, lastStep: () => lastStepOf(client.account.user.id) };
    }

    const lastStepOf = async (userId: string) => (await server.app.services.models.User.findByPk(userId))!.totp_last_step;

    /** A browser past the password, at the code. */
    async function pendingSignIn({ email, password }: { email: string; password: string }): Promise<SiteClient> {

        const client = await new SiteClient(server).ready();
        expect((await client.post('/login', { email, password })).headers.location).to.equal('/login/two-factor');
        return client;
    }

    const signedInByCode = (response: { statusCode: number; headers: Record<string, unknown> }) => response.statusCode === 302 && response.headers.location === '/manage/apis';

    it('takes each code once: sent again it is refused, a code of a later period signs in, none of an earlier one after it', async () => {

        const { client, secret, enrolment, lastStep } = await enrolled();
        const stepOfEnrolment = (await lastStep())!;
        expect(stepOfEnrolment).to.be.a.number();

        const first = await pendingSignIn(client.account);
        // The code that turned two-factor sign-in on was taken then.
        expect((await first.post('/login/two-factor', { code: enrolment.code })).statusCode).to.equal(401);
        const next = appCode(secret, 1);
        expect(signedInByCode(await first.post('/login/two-factor', { code: next }))).to.be.true();
        expect((await lastStep())!).to.be.above(stepOfEnrolment);

        const second = await pendingSignIn(client.account);
        const again = await second.post('/login/two-factor', { code: next });
        expect(again.statusCode).to.equal(401);
        expect(again.payload).to.contain('That code is not right');
        for (const earlier of [appCode(secret), appCode(secret, -1)]) {
            expect((await second.post('/login/two-factor', { code: earlier })).statusCode).to.equal(401);
        }

        expect(second.cookies.has('fr_session')).to.be.false();
    });

    it('lets only one of two sign-ins sent at once with the same code through', async () => {

        const { client, secret } = await enrolled();
        const browsers = [await pendingSignIn(client.account), await pendingSignIn(client.account)];
        const code = appCode(secret, 1);
        const answers = await Promise.all(browsers.map((browser) => browser.post('/login/two-factor', { code })));
        expect(answers.map(signedInByCode).sort()).to.equal([false, true]);
        expect(answers.map((answer) => answer.statusCode).sort()).to.equal([302, 401]);
        expect(await server.app.services.models.AuditEvent.count({ where: { actor_id: client.account.user.id, action: 'session.sign_in' } })).to.equal(2);     // the password sign-in before enrolling, and one of these
    });

    it('takes a recovery code once, even sent by two sign-ins at once', async () => {

        const { client, confirmed } = await enrolled();
        const [code] = [...confirmed.payload.matchAll(/<li><code>([a-z0-9]{5}-[a-z0-9]{5})<\/code><\/li>/g)].map((match) => match[1]);
        const browsers = [await pendingSignIn(client.account), await pendingSignIn(client.account)];
        const answers = await Promise.all(browsers.map((browser) => browser.post('/login/two-factor', { code })));
        expect(answers.map((answer) => answer.statusCode).sort()).to.equal([302, 401]);
        expect((await server.app.services.models.User.findByPk(client.account.user.id))!.recovery_code_hashes).to.have.length(9);
    });

    it('answers the form that turns two-factor sign-in on sent again (a reload of the recovery codes) with 409, keeping the codes shown first', async () => {

        const { client, enrolment, confirmed } = await enrolled();
        const hashes = (await server.app.services.models.User.findByPk(client.account.user.id))!.recovery_code_hashes;

        const resent = await client.post('/account/two-factor/confirm', enrolment);
        expect(resent.statusCode).to.equal(409);
        expect(resent.payload).to.contain('This form was already sent: two-factor sign-in was turned on then');
        expect(resent.payload).to.contain('Recovery codes are shown only once; if you did not save them, turn two-factor sign-in off and on again for new ones.');
        expect(resent.payload).to.contain('href="/account/security"');
        expect(resent.payload).to.not.match(/<li><code>[a-z0-9]{5}-[a-z0-9]{5}<\/code><\/li>/);
        expect(confirmed.payload).to.match(/<li><code>[a-z0-9]{5}-[a-z0-9]{5}<\/code><\/li>/);
        expect((await server.app.services.models.User.findByPk(client.account.user.id))!.recovery_code_hashes).to.equal(hashes);
    });

    it('forgets the last period taken when two-factor sign-in is turned off, so it can be turned on again at once', async () => {

        const { client, secret, lastStep } = await enrolled();
        const browser = await pendingSignIn(client.account);
        expect(signedInByCode(await browser.post('/login/two-factor', { code: appCode(secret, 1) }))).to.be.true();

        expect((await browser.post('/account/two-factor/disable', { password: client.account.password })).statusCode).to.equal(302);
        expect(await lastStep()).to.be.null();

        // A new secret's code of this period, earlier than the last one taken with the old secret.
        const setup = await browser.post('/account/two-factor/setup');
        const confirmed = await browser.post('/account/two-factor/confirm', { code: appCode(secretOn(setup.payload)), form_token: formTokenOn(setup.payload) });
        expect(confirmed.statusCode).to.equal(200);
        expect(confirmed.payload).to.contain('Save your recovery codes');
    });
});
