import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { familyWithKey, testServer } from '../../helpers/server';
import { signedIn, SiteClient } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const clearsSession = (setCookie: string | string[] | undefined) => ([] as string[]).concat(setCookie ?? []).some((cookie) => /^fr_session=;.*Max-Age=0/.test(cookie));

describe('the site-session strategy', () => {

    let server: Server;
    let familyLongId: string;

    before(async () => {

        server = await testServer();
        familyLongId = (await familyWithKey(server)).familyLongId;
    });

    after(async () => {

        await server.stop();
    });

    it('takes a session cookie that does not unseal for none: the sign-in page, the cookie cleared, never a 400 or 500', async () => {

        const manager = await signedIn(server, { role: 'manager', familyLongId });
        const sealed = manager.cookies.get('fr_session')!;
        for (const cookie of ['garbage', `${sealed.slice(0, -2)}xx`]) {
            const client = await new SiteClient(server).ready();
            client.cookies.set('fr_session', cookie);
            const response = await client.get('/manage/apis');
            expect(response.statusCode, cookie).to.equal(302);
            expect(response.headers.location).to.equal('/login?next=%2Fmanage%2Fapis');
            expect(clearsSession(response.headers['set-cookie']), cookie).to.be.true();
        }
    });

    it('signs out a browser whose session ended elsewhere, clears its cookie, and shows sign-in pages to it as to anyone', async () => {

        const manager = await signedIn(server, { role: 'manager', familyLongId });
        expect((await manager.get('/manage/apis')).statusCode).to.equal(200);
        await server.app.services.models.SiteSession.destroy({ where: { user_id: manager.account.user.id } });

        const copied = manager.cookies.get('fr_session')!;
        const page = await manager.get('/manage/apis');
        expect(page.statusCode).to.equal(302);
        expect(clearsSession(page.headers['set-cookie'])).to.be.true();

        const anonymous = await new SiteClient(server).ready();
        anonymous.cookies.set('fr_session', copied);
        const signIn = await anonymous.get('/login');
        expect(signIn.statusCode).to.equal(200);
        expect(signIn.payload).to.include('name="password"');
    });
});
