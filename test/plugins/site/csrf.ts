import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { assertCsrfChecked, withCsrfCheck } from '../../../lib/csrf';
import { familyWithKey, testServer } from '../../helpers/server';
import { signedIn, siteSessionServer, SiteClient } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const tokenShape = /^[A-Za-z0-9_-]{43}$/;

/** The token a page draws into its `<meta name="csrf-token">`. */
const tokenOn = (page: string) => /<meta name="csrf-token" content="([^"]*)">/.exec(page)?.[1];

describe('the hosted site\'s CSRF check', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    it('gives a browser a random token on its first page, draws it into the page, and keeps it', async () => {

        const client = new SiteClient(server);
        const first = await client.get('/login');
        const token = client.cookies.get('crumb')!;
        expect(token).to.match(tokenShape);
        expect(tokenOn(first.payload)).to.equal(token);
        expect(String(first.headers['set-cookie'])).to.match(/crumb=[^;]+; .*HttpOnly; SameSite=Strict/);

        const second = await client.get('/login');
        expect(second.headers['set-cookie']).to.not.exist();
        expect(tokenOn(second.payload)).to.equal(token);
        expect(new SiteClient(server).cookies.get('crumb')).to.not.equal(token);
    });

    it('replaces a token cookie of another shape, and never takes one as a token', async () => {

        const client = new SiteClient(server);
        client.cookies.set('crumb', 'forged');
        expect((await client.post('/login', { email: 'someone@example.com', password: 'wrong', crumb: 'forged' }, { crumb: false })).statusCode).to.equal(403);

        await client.get('/login');
        expect(client.cookies.get('crumb')).to.match(tokenShape);
    });

    it('takes the token as X-CSRF-Token on a form too, and refuses a wrong one there', async () => {

        const manager = await signedIn(server, { role: 'manager', familyLongId: (await familyWithKey(server)).familyLongId });
        const token = manager.cookies.get('crumb')!;
        const send = (csrfToken: string) => server.inject({
            method: 'POST',
            url: '/logout',
            headers: { cookie: `crumb=${token}; fr_session=${manager.cookies.get('fr_session')}`, 'x-csrf-token': csrfToken, 'content-type': 'application/x-www-form-urlencoded' },
            payload: ''
        });

        expect((await send(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).statusCode).to.equal(403);
        const signedOut = await send(token);
        expect(signedOut.statusCode).to.equal(302);
        expect(signedOut.headers.location).to.equal('/login?notice=signed-out');
    });

    it('answers a refused JSON request with the error contract\'s 403', async () => {

        const manager = await signedIn(server, { role: 'manager', familyLongId: (await familyWithKey(server)).familyLongId });
        const response = await server.inject({
            method: 'POST',
            url: '/manage/webhooks',
            headers: { cookie: `crumb=${manager.cookies.get('crumb')}; fr_session=${manager.cookies.get('fr_session')}` },
            payload: { url: 'https://example.com/hook', resources: ['persons'] }
        });

        expect(response.statusCode).to.equal(403);
        expect(response.result).to.include({ code: 'forbidden' });
        expect((response.result as { message: string }).message).to.include('CSRF token');
    });
});

describe('assertCsrfChecked()', () => {

    const handler = () => 'ok';

    it('refuses to start with a route that uses site-session without the check, whichever way it names the strategy', async () => {

        const server = siteSessionServer([
            { method: 'POST', path: '/manage/thing', options: { auth: { strategy: 'site-session' }, handler } },
            { method: 'GET', path: '/account/other', options: { auth: 'site-session', handler } }
        ]);
        expect(() => assertCsrfChecked(server)).to.throw('Hosted site: POST /manage/thing, GET /account/other use site-session without the CSRF check: register them through withCsrfCheck()');
    });

    it('accepts routes registered through withCsrfCheck(), and leaves other routes alone', async () => {

        const server = siteSessionServer(withCsrfCheck([
            {
                method: 'POST',
                path: '/manage/thing',
                options: { auth: { strategy: 'site-session', mode: 'try' }, handler }
            },
            { method: 'GET', path: '/account/other', options: { auth: 'site-session', handler } },
            { method: 'POST', path: '/api/thing', options: { auth: false, handler } }
        ]));
        expect(() => assertCsrfChecked(server)).to.not.throw();
        expect(server.table().find((route) => route.path === '/api/thing')!.settings.ext).to.equal({});
    });
});
