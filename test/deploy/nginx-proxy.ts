import Https from 'https';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Request, Server } from '@hapi/hapi';

import { familyWithKey, testServer, type FamilyFixture } from '../helpers/server';
import { nginxBinary, TestNginx, type ProxiedAnswer } from '../helpers/nginx';
import { until } from '../plugins/stream/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** nginx's $request_id: 32 hex digits. */
const nginxRequestId = /^[0-9a-f]{32}$/;

/** An error nginx answered itself, in the service's JSON shape, naming nginx's request id; returns the id. */
function expectNginxJsonError(answer: ProxiedAnswer, status: number, code: string): string {

    expect(answer.statusCode).to.equal(status);
    expect(answer.headers['content-type']).to.equal('application/json');
    const id = answer.headers['x-request-id'] as string;
    expect(id).to.match(nginxRequestId);
    const body = JSON.parse(answer.body);
    expect(body).to.include({ statusCode: status, code });
    expect((body.message as string).endsWith(`Quote request id ${id} when reporting it.`), body.message).to.be.true();
    return id;
}

/** An instance of the service listening on loopback, as family-records@<port>.service runs it behind nginx. */
async function instance(shareWith?: Server): Promise<Server> {

    const server = await testServer({ shareWith, env: { TRUSTED_PROXIES: '127.0.0.1' } });
    await server.start();
    return server;
}

/** What the service saw of a request it answered: the id it gave it, and the X-Forwarded-For that came with it. */
interface SeenRequest {
    id: string;
    forwardedFor: string | undefined;
}

/** Every request `server` answers, from now on, in order. */
function seenRequests(server: Server): SeenRequest[] {

    const seen: SeenRequest[] = [];
    server.events.on('response', (request: Request) => seen.push({ id: request.requestId, forwardedFor: request.headers['x-forwarded-for'] as string | undefined }));
    return seen;
}

// deploy/nginx.conf as operators run it, in a real nginx in front of two real instances, over TLS.
describe('deploy/nginx.conf in nginx, in front of two instances', { skip: !nginxBinary }, () => {

    let first: Server;
    let second: Server;
    let nginx: TestNginx;
    let family: FamilyFixture;
    const seen: SeenRequest[][] = [];
    const seenWithId = (id: unknown) => seen.flat().find((request) => request.id === id);

    before(async () => {

        first = await instance();
        second = await instance(first);
        seen.push(seenRequests(first), seenRequests(second));
        family = await familyWithKey(first);
        nginx = await TestNginx.start([Number(first.info.port), Number(second.info.port)]);
    });

    after(async () => {

        await nginx?.stop();
        // The last tests stop the instances themselves.
        for (const server of [second, first]) {
            if (server?.info.started) {
                await server.stop();
            }
        }
    });

    it('passes nginx -t with only its addresses, certificate and log file replaced', async () => {

        const { directory, mainConf } = await TestNginx.configure([3001, 3002]);
        expect(TestNginx.check(mainConf, directory)).to.contain('syntax is ok');
    });

    it('answers through nginx with nginx\'s request id, which the service kept and both logs name (not a client\'s own), and passes the client\'s address on', async () => {

        const answer = await nginx.request('GET', '/api/v1/persons?limit=1', { headers: { authorization: `Bearer ${family.key}`, 'x-request-id': 'chosen-by-the-client', 'x-forwarded-for': '203.0.113.9' } });
        expect(answer.statusCode).to.equal(200);
        expect(JSON.parse(answer.body).data).to.equal([]);
        expect(answer.headers.server).to.equal('nginx');        // server_tokens off: no version

        const id = answer.headers['x-request-id'];
        expect(id).to.match(nginxRequestId);
        expect(await nginx.accessLogLine(id as string)).to.contain(` 200 ${answer.body.length} "-" "-" request_id=${id}`);
        // The instance that answered gave the request nginx's id, not one of its own, and got the
        // client's address appended to what the client sent.
        expect(seenWithId(id)).to.equal({ id: id as string, forwardedFor: '203.0.113.9, 127.0.0.1' });

        const page = await nginx.request('GET', '/login');
        expect(page.statusCode).to.equal(200);
        expect(seenWithId(page.headers['x-request-id'])?.forwardedFor).to.equal('127.0.0.1');
    });

    it('gives an error answer of the service the same id, and its JSON body untouched', async () => {

        const answer = await nginx.request('GET', '/api/v1/persons', { headers: { authorization: 'Bearer frk_not_a_key' } });
        expect(answer.statusCode).to.equal(401);
        expect(JSON.parse(answer.body).code).to.equal('invalid_key');
        expect(answer.headers['x-request-id']).to.match(nginxRequestId);
        expect(seenWithId(answer.headers['x-request-id'])).to.exist();
    });

    it('lets an upload body over the service\'s limit through, so the service answers 413 too_large in JSON itself', async () => {

        const limit = first.match('POST', '/api/v1/gallery')!.settings.payload!.maxBytes!;
        const prefix = '{"original_name":"big.png","file_base64":"';
        const body = Buffer.concat([Buffer.from(prefix), Buffer.alloc(limit + 1 - prefix.length - 2, 'A'), Buffer.from('"}')]);
        const answer = await nginx.request('POST', '/api/v1/gallery', {
            headers: { authorization: `Bearer ${family.key}`, 'content-type': 'application/json', 'content-length': body.length },
            body
        });
        expect(answer.statusCode).to.equal(413);
        expect(JSON.parse(answer.body).code).to.equal('too_large');
        expect(answer.headers['x-request-id']).to.match(nginxRequestId);
    });

    // The service also asks nginx not to buffer the stream (X-Accel-Buffering: no), so this holds without the
    // location's proxy_buffering off too: either is enough; the test checks what a client gets.
    it('answers a body over its own limit with 413 too_large in JSON, as the service would', async () => {

        // Announced, not sent: nginx answers on the Content-Length alone.
        const answer = await nginx.request('POST', '/api/v1/gallery', {
            headers: { authorization: `Bearer ${family.key}`, 'content-type': 'application/json', 'content-length': 40 * 1024 * 1024 }
        });
        expectNginxJsonError(answer, 413, 'too_large');
    });

    it('sends each change of the stream on as it happens, without buffering it', async () => {

        // One instance behind both of the upstream's entries: without Redis, a change reaches the streams of its own instance only.
        const streamNginx = await TestNginx.start([Number(first.info.port), Number(first.info.port)]);
        try {
            let text = '';
            const response = await new Promise<import('http').IncomingMessage>((resolve, reject) => {

                const request = Https.request(streamNginx.requestOptions('GET', '/api/v1/events/stream', { authorization: `Bearer ${family.key}` }), resolve);
                request.on('error', reject);
                request.end();
            });
            expect(response.statusCode).to.equal(200);
            expect(response.headers['x-request-id']).to.match(nginxRequestId);
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {

                text += chunk;
            });
            await until(() => text.includes('retry:'), 'the retry hint through nginx');

            const created = await streamNginx.request('POST', '/api/v1/persons', {
                headers: { authorization: `Bearer ${family.key}`, 'content-type': 'application/json' },
                body: JSON.stringify({ first_name: 'Märta', last_name: 'Lind' })
            });
            expect(created.statusCode).to.equal(201);
            const id = JSON.parse(created.body).data.id;
            await until(() => text.includes('event: persons.created') && text.includes(`"record_id":"${id}"`), 'the change through nginx', 3000);
            response.destroy();
        }
        finally {
            await streamNginx.stop();
        }
    });

    it('passes requests to the other instance when one stops, so clients see no error', async () => {

        await second.stop();
        for (let i = 0; i < 4; ++i) {
            const answer = await nginx.request('GET', '/api/v1/persons?limit=1', { headers: { authorization: `Bearer ${family.key}` } });
            expect(answer.statusCode).to.equal(200);
        }
    });

    it('answers 502 when no instance answers: in JSON with a code and its request id on the API, in HTML on the site', async () => {

        await first.stop();
        const answer = await nginx.request('GET', '/api/v1/persons', { headers: { authorization: `Bearer ${family.key}` } });
        const id = expectNginxJsonError(answer, 502, 'internal_error');
        expect(await nginx.accessLogLine(id)).to.contain(`" 502 `);

        const page = await nginx.request('GET', '/login');
        expect(page.statusCode).to.equal(502);
        expect(page.headers['content-type']).to.contain('text/html');
        expect(page.headers['x-request-id']).to.match(nginxRequestId);
    });
});
