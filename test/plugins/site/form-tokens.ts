import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily, enableApi } from '../../../lib/accounts/families';
import { testServer, testVariant } from '../../helpers/server';
import { formTokenOn, signedIn, SiteClient, type Form } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * One-time form tokens (plugins/site/form-tokens.ts), through the key form: what every form that
 * shows something once shares. The webhook and two-factor forms have their own tests beside theirs.
 */

const keyForm: Form = { name: 'Reloaded sync', resources: ['persons'], operations: ['read'] };

describe(`one-time form tokens on ${testVariant}`, () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    async function manager() {

        const family = await createFamily(server.app.services.accounts, { name: 'Form token family', plan: 'family' });
        await enableApi(server.app.services.accounts, family.family_long_id, ['persons']);
        const client = await signedIn(server, { role: 'manager', familyLongId: family.family_long_id });
        const keys = () => server.app.services.models.ApiKey.count({ where: { family_long_id: family.family_long_id } });
        return { client, familyLongId: family.family_long_id, keys };
    }

    const tokenOfKeyForm = async (client: SiteClient) => formTokenOn((await client.get('/manage/apis/keys/new')).payload);

    it('answers a key form sent again (a reload of the page that shows the key) with 409 saying which key was made, and makes no second key', async () => {

        const { client, familyLongId, keys } = await manager();
        const token = await tokenOfKeyForm(client);
        expect(token).to.match(/^[\w-]{22}\.[\w-]{43}$/);

        const created = await client.post('/manage/apis/keys', { ...keyForm, form_token: token });
        expect(created.statusCode).to.equal(201);
        expect(created.payload).to.contain('data-testid="new-key"');

        const resent = await client.post('/manage/apis/keys', { ...keyForm, form_token: token });
        expect(resent.statusCode).to.equal(409);
        expect(resent.headers['cache-control']).to.equal('no-store');
        expect(resent.payload).to.contain('This form was already sent: the key “<bdi>Reloaded sync</bdi>” was created then');
        expect(resent.payload).to.contain('A key is shown only once; if you did not copy it, revoke it and create another.');
        expect(resent.payload).to.contain('href="/manage/apis"');
        expect(resent.payload).to.not.contain('frk_');
        expect(await keys()).to.equal(1);
        expect(await server.app.services.models.AuditEvent.count({ where: { family_long_id: familyLongId, action: 'api_key.create' } })).to.equal(1);
    });

    it('answers only one of two sends of a form at once (a double click without the script) with a key', async () => {

        const { client, keys } = await manager();
        const token = await tokenOfKeyForm(client);
        const answers = await Promise.all([0, 1].map(() => client.post('/manage/apis/keys', { ...keyForm, form_token: token })));
        expect(answers.map((answer) => answer.statusCode).sort()).to.equal([201, 409]);
        expect(await keys()).to.equal(1);
    });

    it('answers a form sent again to another instance as the first did: the tokens sent are in the database', async () => {

        const { client, keys } = await manager();
        const second = await testServer({ shareWith: server });
        try {
            const token = await tokenOfKeyForm(client);
            expect((await client.post('/manage/apis/keys', { ...keyForm, form_token: token })).statusCode).to.equal(201);

            const elsewhere = new SiteClient(second, client.remoteAddress);
            for (const [name, value] of client.cookies) {
                elsewhere.cookies.set(name, value);
            }

            const resent = await elsewhere.post('/manage/apis/keys', { ...keyForm, form_token: token });
            expect(resent.statusCode).to.equal(409);
            expect(resent.payload).to.contain('“<bdi>Reloaded sync</bdi>” was created then');
            expect(await keys()).to.equal(1);
        }
        finally {
            await second.stop();
        }
    });

    it('gives each page drawn a token of its own: a key form in each of two tabs makes two keys', async () => {

        const { client, keys } = await manager();
        const [first, second] = [await tokenOfKeyForm(client), await tokenOfKeyForm(client)];
        expect(first).to.not.equal(second);
        for (const token of [first, second]) {
            expect((await client.post('/manage/apis/keys', { ...keyForm, form_token: token })).statusCode).to.equal(201);
        }

        expect(await keys()).to.equal(2);
    });

    it('lets a form refused in words be sent again with its token: nothing was made', async () => {

        const { client, keys } = await manager();
        const token = await tokenOfKeyForm(client);
        const refused = await client.post('/manage/apis/keys', { ...keyForm, name: ' ', form_token: token });
        expect(refused.statusCode).to.equal(422);
        expect(formTokenOn(refused.payload)).to.not.equal(token);           // the form drawn again has a token of its own

        expect((await client.post('/manage/apis/keys', { ...keyForm, form_token: token })).statusCode).to.equal(201);
        expect(await keys()).to.equal(1);
    });

    it('refuses, as an out-of-date form, a form without its token or with a token of another session, making nothing', async () => {

        const { client, keys } = await manager();
        const sameUserElsewhere = new SiteClient(server);
        await sameUserElsewhere.ready();
        expect((await sameUserElsewhere.post('/login', { email: client.account.email, password: client.account.password })).statusCode).to.equal(302);
        const tokenOfOtherSession = await tokenOfKeyForm(sameUserElsewhere);
        const [nonce] = tokenOfOtherSession.split('.');

        for (const token of [undefined, '', 'not a token', tokenOfOtherSession, `${nonce}.${'A'.repeat(43)}`, `${tokenOfOtherSession}.x`, 'x'.repeat(201)]) {
            const response = await client.post('/manage/apis/keys', { ...keyForm, ...(token === undefined ? {} : { form_token: token }) });
            expect(response.statusCode, String(token)).to.be.within(400, 403);
            expect(response.payload).to.contain('Error 4');
        }

        expect(await keys()).to.equal(0);
    });

    it('refuses the tokens of a session that ended, and forgets them once it is over', async () => {

        const { client, keys } = await manager();
        const token = await tokenOfKeyForm(client);
        expect((await client.post('/manage/apis/keys', { ...keyForm, form_token: token })).statusCode).to.equal(201);
        const { SiteFormToken, SiteSession } = server.app.services.models;
        const [nonce] = token.split('.');
        const sent = (await SiteFormToken.findByPk(nonce))!;
        expect(sent.outcome).to.equal('Reloaded sync');
        // Remembered as long as its session could send it.
        const session = (await SiteSession.findOne({ where: { user_id: client.account.user.id } }))!;
        expect(sent.expires_at).to.equal(session.expires_at);

        // Signed out, then in again: the old page's form is out of date, not sent again.
        await client.post('/logout');
        await client.post('/login', { email: client.account.email, password: client.account.password });
        expect((await client.post('/manage/apis/keys', { ...keyForm, form_token: token })).statusCode).to.equal(403);
        expect(await keys()).to.equal(1);

        // The next sign-in, anyone's, cleans up the tokens of sessions that are over.
        await SiteFormToken.update({ expires_at: new Date(Date.now() - 1000) }, { where: { nonce } });
        await signedIn(server, { role: 'super-admin' });
        expect(await SiteFormToken.findByPk(nonce)).to.be.null();
    });
});
