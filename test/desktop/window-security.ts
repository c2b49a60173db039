import Http from 'http';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { startWindowServer, type DesktopClient, type WindowServer } from 'family-records-desktop';

import { connectDesktopClient, desktopService, type DesktopService } from '../helpers/desktop-service';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

interface Answer {
    status: number;
    headers: Http.IncomingHttpHeaders;
    body: string;
}

/*
 * The window's server is reachable by every local user and, through the browser, by every web page: it answers only
 * the window it launched (the secret once, then the cookie), at its own address, and takes changes only from its
 * own origin as JSON.
 */

describe('desktop window: who may drive it', () => {

    let service: DesktopService;
    let client: DesktopClient;
    let window: WindowServer;
    let port: number;
    let launch: string;
    let cookie: string;

    /** One request with exactly these headers (Host included, as no fetch() lets a test set it). */
    const ask = (path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) => new Promise<Answer>((resolve, reject) => {

        const request = Http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...options.headers } }, (response) => {

            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
        });
        request.on('error', reject);
        request.end(options.body);
    });

    const json = { 'content-type': 'application/json' };

    before(async () => {

        service = await desktopService();
        client = await connectDesktopClient(service, await service.member());
        window = await startWindowServer(client);
        const url = new URL(window.url);
        port = Number(url.port);
        launch = url.searchParams.get('launch')!;
    });

    after(async () => {

        await window?.close();
        await client?.close();
        await service?.stop();
    });

    it('listens on 127.0.0.1 with a 256-bit launch secret, refuses a wrong one, and takes the right one once for an HttpOnly SameSite=Strict cookie', async () => {

        expect(window.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/\?launch=[\w-]{43}$/);

        const wrong = await ask(`/?launch=${launch[0] === 'A' ? 'B' : 'A'}${launch.slice(1)}`);
        expect(wrong.status).to.equal(403);
        expect(wrong.headers['set-cookie']).to.not.exist();

        const taken = await ask(`/?launch=${launch}`);
        expect(taken.status).to.equal(302);
        expect(taken.headers.location).to.equal('/');
        const [setCookie] = taken.headers['set-cookie']!;
        expect(setCookie).to.match(/^family_records_window=[\w-]{43}; /);
        expect(setCookie).to.contain('HttpOnly');
        expect(setCookie).to.contain('SameSite=Strict');
        expect(setCookie).to.contain('Path=/');
        expect(setCookie).to.not.contain(launch);
        cookie = setCookie.split(';')[0];

        expect((await ask(`/?launch=${launch}`)).status).to.equal(403);

        const page = await ask('/', { headers: { cookie } });
        expect(page.status).to.equal(200);
        expect(page.headers['content-type']).to.contain('text/html');
        expect(page.headers['content-security-policy']).to.contain("default-src 'self'");
        expect(page.headers['x-frame-options']).to.equal('DENY');
        expect(page.headers['cache-control']).to.equal('no-store');
        expect(page.body).to.not.contain('<script>');
    });

    it('answers nothing without the cookie, or with another one', async () => {

        for (const path of ['/', '/api/status', '/api/conversations', '/events', '/assets/app.js']) {
            const none = await ask(path);
            expect(none.status, path).to.equal(401);
            expect(none.body).to.not.contain('family_records');
        }

        expect((await ask('/api/status', { headers: { cookie: 'family_records_window=' + 'A'.repeat(43) } })).status).to.equal(401);
        expect((await ask('/api/status', { headers: { cookie: `x=${launch}` } })).status).to.equal(401);
        const status = await ask('/api/status', { headers: { cookie } });
        expect(status.status).to.equal(200);
        expect(JSON.parse(status.body).profile.userId).to.equal(client.profile.userId);
    });

    it('refuses another Host, as a page whose name was rebound to 127.0.0.1 sends', async () => {

        for (const host of [`localhost:${port}`, 'evil.example', `127.0.0.1:${port + 1}`, '127.0.0.1']) {
            const answer = await ask('/api/status', { headers: { host, cookie } });
            expect(answer.status, host).to.equal(421);
        }

        expect((await ask(`/?launch=${launch}`, { headers: { host: `localhost:${port}` } })).status).to.equal(421);
    });

    it('takes a change only from its own origin, as JSON', async () => {

        const sync = (headers: Record<string, string>, body = '{}') => ask('/api/sync', { method: 'POST', headers: { cookie, ...headers }, body });

        expect((await sync({ ...json, origin: 'http://evil.example' })).status).to.equal(403);
        expect((await sync({ ...json, origin: `http://localhost:${port}` })).status).to.equal(403);
        expect((await sync({ ...json, origin: 'null' })).status).to.equal(403);
        expect((await sync(json)).status).to.equal(403);
        expect((await sync({ origin: `http://127.0.0.1:${port}`, 'content-type': 'text/plain' })).status).to.equal(415);
        expect((await sync({ origin: `http://127.0.0.1:${port}`, 'content-type': 'application/x-www-form-urlencoded' }, 'a=b')).status).to.equal(415);
        expect((await sync({ origin: `http://127.0.0.1:${port}`, 'content-type': 'multipart/form-data; boundary=x' }, '--x--')).status).to.equal(415);

        // Without the cookie, the right origin opens nothing either.
        expect((await ask('/api/sync', { method: 'POST', headers: { ...json, origin: `http://127.0.0.1:${port}` }, body: '{}' })).status).to.equal(401);

        const allowed = await sync({ ...json, origin: `http://127.0.0.1:${port}` });
        expect(allowed.status, allowed.body).to.equal(200);
        expect(JSON.parse(allowed.body).data).to.include({ changes: 0 });
    });

    it('serves only the page\'s own files', async () => {

        expect((await ask('/assets/app.js', { headers: { cookie } })).headers['content-type']).to.contain('text/javascript');
        expect((await ask('/assets/app.css', { headers: { cookie } })).headers['content-type']).to.contain('text/css');
        expect((await ask('/assets/index.html', { headers: { cookie } })).status).to.equal(404);
        expect((await ask('/assets/..%2Fserver.ts', { headers: { cookie } })).status).to.equal(404);
        expect((await ask('/assets/..%2F..%2F..%2Fpackage.json', { headers: { cookie } })).status).to.equal(404);
    });
});
