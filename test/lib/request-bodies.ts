import Http from 'http';
import Zlib from 'zlib';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import Hapi, { type Server, type ServerRoute } from '@hapi/hapi';

import { assertBodiesChecked, utf8Check, withBodyChecks } from '../../lib/request-bodies';
import { parsedAnswer, rawExchange } from '../helpers/raw-http';
import { familyWithKey, testServer, type FamilyFixture } from '../helpers/server';
import { createBody, dataOf, expectError } from '../plugins/records/fixtures';
import { cookieHeader, signedIn } from '../plugins/site/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const json = { 'content-type': 'application/json' };

/** A person body whose first name is "Zoë", in the given bytes. */
const zoe = (encoding: BufferEncoding) => Buffer.concat([Buffer.from('{"first_name":"Zo'), Buffer.from('ë', encoding), Buffer.from('","last_name":"Müller"}')]);

describe('utf8Check()', () => {

    const checked = (...chunks: Buffer[]) => {

        const check = utf8Check();
        chunks.forEach(check.push);
        return check.end();
    };

    it('takes UTF-8 however it is cut into chunks', () => {

        const text = Buffer.from('Zoë 😀 Müller');
        for (let cut = 0; cut <= text.length; ++cut) {
            expect(checked(text.subarray(0, cut), text.subarray(cut)), `cut at ${cut}`).to.be.true();
        }

        expect(checked()).to.be.true();
    });

    it('refuses a byte that is not UTF-8, and a character the last chunk cuts short', () => {

        expect(checked(Buffer.from('Zo\xeb', 'latin1'), Buffer.from('!'))).to.be.false();
        expect(checked(Buffer.from('Zo'), Buffer.from('\xc3', 'latin1'))).to.be.false();
        expect(checked(Buffer.from('\xed\xa0\x80', 'latin1'))).to.be.false();         // a surrogate: no character of UTF-8
    });
});

describe('request bodies', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        server = await testServer();
        await server.start();
        family = await familyWithKey(server);
    });

    after(() => server.stop());

    const personCount = () => server.app.services.models.records.persons.count({ where: { family_long_id: family.familyLongId } });

    describe('not UTF-8', () => {

        it('refuses a JSON body that is not UTF-8 with 400 invalid_request, rather than storing U+FFFD for what it could not read', async () => {

            const before = await personCount();
            for (const headers of [json, { 'content-type': 'application/json; charset=latin1' }, { 'content-type': 'application/json; charset=utf-8' }]) {
                const response = await family.inject('POST', '/api/v1/persons', zoe('latin1'), headers);
                expectError(response, 400, 'invalid_request', 'The body is not UTF-8');
                expect(response.headers.ratelimit).to.exist();
            }

            const id = dataOf(await family.inject('POST', '/api/v1/persons', zoe('utf8'), json), 201).id;
            expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, Buffer.from('{"first_name":"Zo\xeb"}', 'latin1'), json), 400, 'invalid_request', 'not UTF-8');
            expect(dataOf(await family.inject('GET', `/api/v1/persons/${id}`))).to.include({ first_name: 'Zoë', revision: 1 });
            expect(await personCount()).to.equal(before + 1);
        });

        it('refuses a body with a character cut short, and one gzip-encoded that is not UTF-8 once decoded', async () => {

            expectError(await family.inject('POST', '/api/v1/persons', Buffer.from('{"first_name":"Zo\xc3","last_name":"M"}', 'latin1'), json), 400, 'invalid_request', 'not UTF-8');
            expectError(await family.inject('POST', '/api/v1/persons', Zlib.gzipSync(zoe('latin1')), { ...json, 'content-encoding': 'gzip' }), 400, 'invalid_request', 'not UTF-8');
            expect(dataOf(await family.inject('POST', '/api/v1/persons', Zlib.gzipSync(zoe('utf8')), { ...json, 'content-encoding': 'gzip' }), 201).first_name).to.equal('Zoë');
        });

        it('takes a character whose bytes arrive in two pieces', async () => {

            const body = zoe('utf8');
            const split = body.indexOf(Buffer.from('ë')) + 1;            // between the two bytes of "ë"
            const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {

                const request = Http.request(`${server.info.uri}/api/v1/persons`, { method: 'POST', headers: { ...json, authorization: `Bearer ${family.key}`, 'transfer-encoding': 'chunked' } }, (answer) => {

                    let text = '';
                    answer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: answer.statusCode!, body: text }));
                });
                request.on('error', reject);
                request.write(body.subarray(0, split));
                setTimeout(() => request.end(body.subarray(split)), 50);
            });

            expect(response.status, response.body).to.equal(201);
            expect(JSON.parse(response.body).data.first_name).to.equal('Zoë');
        });
    });

    describe('Content-Encoding', () => {

        it('refuses a coding it cannot decode with 415 unsupported_media_type and Accept-Encoding, rather than reading the bytes as they came', async () => {

            const before = await personCount();
            for (const encoding of ['br', 'zstd', 'gzip, gzip', 'x-unknown']) {
                const response = await family.inject('POST', '/api/v1/persons', JSON.stringify(createBody('persons')), { ...json, 'content-encoding': encoding });
                expectError(response, 415, 'unsupported_media_type', `Content-Encoding ${encoding} is not supported`);
                expect(response.headers['accept-encoding']).to.equal('gzip, deflate');
                expect(response.headers.ratelimit).to.exist();
            }

            expect(await personCount()).to.equal(before);
        });

        it('reads gzip and deflate in any case, and identity as no coding', async () => {

            const body = Buffer.from(JSON.stringify(createBody('persons')));
            for (const [encoding, bytes] of [['gzip', Zlib.gzipSync(body)], ['GZIP', Zlib.gzipSync(body)], ['Deflate', Zlib.deflateSync(body)], ['identity', body]] as const) {
                dataOf(await family.inject('POST', '/api/v1/persons', bytes, { ...json, 'content-encoding': encoding }), 201);
            }
        });

        it('answers a bad key first', async () => {

            const response = await server.inject({ method: 'POST', url: '/api/v1/persons', payload: '{}', headers: { ...json, 'content-encoding': 'br' } });
            expectError(response, 401, 'invalid_key');
        });
    });

    describe('Expect: 100-continue', () => {

        const head = (method: string, path: string, length: number, key = family.key) => `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;

        it('answers a declared length over the route\'s limit with 413 too_large at once, without 100 Continue, so the body is never sent', async () => {

            const personId = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;
            const uploadLimit = server.match('POST', '/api/v1/gallery')!.settings.payload!.maxBytes!;
            for (const [method, path, limit] of [['POST', '/api/v1/persons', 1024 * 1024], ['PATCH', `/api/v1/persons/${personId}`, 1024 * 1024], ['POST', '/api/v1/gallery', uploadLimit], ['POST', '/api/v1/documents', uploadLimit]] as const) {
                const received = await rawExchange(server, head(method, path, limit + 1));
                expect(received, `${method} ${path}`).to.not.contain('100 Continue');
                const answer = parsedAnswer(received);
                expect(answer.statusLine).to.equal('HTTP/1.1 413 Payload Too Large');
                expect(JSON.parse(answer.body)).to.equal({ statusCode: 413, error: 'Request Entity Too Large', message: `Payload content length greater than maximum allowed: ${limit}`, code: 'too_large' });
                // Counted against the rate limit like any refused body, and the connection closed: the client may send the body yet.
                expect(answer.headers.ratelimit).to.exist();
                expect(answer.headers.connection).to.equal('close');
            }
        });

        it('writes 100 Continue for a body within the limit, and takes it', async () => {

            const body = JSON.stringify(createBody('persons'));
            const received = await rawExchange(server, head('POST', '/api/v1/persons', Buffer.byteLength(body)), { bodyAfterContinue: body });
            expect(received).to.startWith('HTTP/1.1 100 Continue\r\n\r\n');
            const answer = parsedAnswer(received);
            expect(answer.statusLine).to.equal('HTTP/1.1 201 Created');
            expect(JSON.parse(answer.body).data.first_name).to.equal(createBody('persons').first_name);
        });

        it('answers a bad key, and a path no route takes, without 100 Continue either', async () => {

            const unauthenticated = await rawExchange(server, head('POST', '/api/v1/persons', 2 * 1024 * 1024, 'frk_wrong'));
            expect(unauthenticated).to.startWith('HTTP/1.1 401 ');
            expect(JSON.parse(parsedAnswer(unauthenticated).body).code).to.equal('invalid_key');

            const unrouted = await rawExchange(server, head('POST', '/api/v1/nothing', 2 * 1024 * 1024));
            expect(unrouted).to.startWith('HTTP/1.1 404 ');
            expect(JSON.parse(parsedAnswer(unrouted).body).code).to.equal('not_found');
        });
    });

    describe('on every route that takes a body', () => {

        it('refuses a body that is not UTF-8 on the hosted site\'s forms and the webhooks plugin\'s JSON routes too', async () => {

            const manager = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
            const cookie = cookieHeader(manager.cookies);
            const latin1 = (text: string) => Buffer.from(text, 'latin1');

            const form = await server.inject({ method: 'POST', url: '/manage/apis/keys', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: latin1(`crumb=${manager.cookies.get('crumb')}&name=Zo\xeb`) });
            expect(form.statusCode).to.equal(400);
            expect(form.payload).to.include('The form could not be read');

            const webhook = await server.inject({ method: 'POST', url: '/manage/webhooks', headers: { cookie, ...json, 'x-csrf-token': manager.cookies.get('crumb')! }, payload: latin1('{"url":"https://example.com/Zo\xeb","resources":["persons"]}') });
            expect(webhook.statusCode).to.equal(400);
            expect(webhook.result).to.include({ code: 'invalid_request' });
        });
    });
});

describe('withBodyChecks() and assertBodiesChecked()', () => {

    const handler = () => 'ok';
    const serverWith = (routes: ServerRoute[]) => {

        const server = Hapi.server();
        server.route(routes);
        return server;
    };

    it('refuses to start with a route that parses its body without the checks', () => {

        const server = serverWith([{ method: 'POST', path: '/a', handler }, { method: 'PATCH', path: '/b', handler }, { method: 'GET', path: '/c', handler }]);
        expect(() => assertBodiesChecked(server)).to.throw('POST /a, PATCH /b parse their body without the body checks: register them through withBodyChecks() (lib/request-bodies.ts)');
    });

    it('accepts routes registered through withBodyChecks(), and a route that does not parse its body', () => {

        const server = serverWith([
            ...withBodyChecks([{ method: 'POST', path: '/a', handler }, { method: ['PUT', 'DELETE'], path: '/b', handler }, { method: 'GET', path: '/c', handler }]),
            { method: 'POST', path: '/raw', handler, options: { payload: { parse: false } } }
        ]);
        expect(() => assertBodiesChecked(server)).to.not.throw();
        expect(server.table().find((route) => route.path === '/c')!.settings.ext).to.equal({});
    });
});
