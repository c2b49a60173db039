import Fs from 'fs';
import Http from 'http';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server, ServerInjectOptions, ServerInjectResponse } from '@hapi/hapi';

import { copyPolicies, familyWithKey, testServer } from '../helpers/server';
import { parsedAnswer, rawExchange } from '../helpers/raw-http';
import { capturingStderr } from '../helpers/stderr';
import { pathOf, sampleFile, upload } from '../plugins/files/fixtures';
import { bodyOf, createBody, dataOf } from '../plugins/records/fixtures';
import { RawStream } from '../plugins/stream/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** An id the service made: `req_` and 18 random base62 characters. */
const madeId = /^req_[0-9A-Za-z]{18}$/;

/** The id of an answer, which the service made. */
function madeIdOf(response: ServerInjectResponse | { headers: Http.IncomingHttpHeaders }, what: string): string {

    const id = response.headers['x-request-id'];
    expect(id, what).to.be.a.string();
    expect(id, what).to.match(madeId);
    return id as string;
}

/** A copy of the policies where a key of the Family plan makes 1 request an hour. */
function oneRequestAnHour(): string {

    const directory = copyPolicies();
    Fs.writeFileSync(Path.join(directory, 'rate-limits.yaml'), `_format_version: "1.0"
presets:
  - name: standard
    per_key: { limit: 1, window_seconds: 3600 }
    per_family: { limit: 100, window_seconds: 3600 }
  - name: high
    per_key: { limit: 3000, window_seconds: 60 }
    per_family: { limit: 6000, window_seconds: 60 }
  - name: messaging
    per_key: { limit: 300, window_seconds: 60 }
    per_family: { limit: 3000, window_seconds: 60 }
`);
    return directory;
}

/** Runs `work` while the change log cannot be written (a database fault after the record itself was), keeping the log lines it writes. */
async function withFailingChangeLog(server: Server, work: () => Promise<ServerInjectResponse>): Promise<{ response: ServerInjectResponse; logged: string[] }> {

    const changeEvents = server.app.services.models.ChangeEvent;
    const create = changeEvents.create;
    changeEvents.create = (() => Promise.reject(new Error('injected fault: change log unavailable'))) as unknown as typeof create;
    try {
        const { result: response, written: logged } = await capturingStderr(work);
        return { response, logged };
    }
    finally {
        changeEvents.create = create;
    }
}

describe('X-Request-Id', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
        await server.start();
    });

    after(() => server.stop());

    it('is on every answer, a success or an error of any kind, each one its own', async () => {

        const family = await familyWithKey(server);
        const treesOnly = await familyWithKey(server, { resources: ['trees'] });
        const answers: [string, ServerInjectResponse][] = [
            ['a list', await family.inject('GET', '/api/v1/persons')],
            ['a create', await family.inject('POST', '/api/v1/persons', createBody('persons'))],
            ['no key (401)', await server.inject('/api/v1/persons')],
            ['outside the key\'s resources (403)', await treesOnly.inject('GET', '/api/v1/persons')],
            ['an unknown record (404)', await family.inject('GET', '/api/v1/persons/per_AAAAAAAAAAAAAAAAAAAA')],
            ['an unknown path (404)', await family.inject('GET', '/api/v1/nothing-here')],
            ['an unknown method (405)', await family.inject('PUT', '/api/v1/persons')],
            ['a bad query (400)', await family.inject('GET', '/api/v1/persons?limit=many')],
            ['a URL that is not UTF-8 (400)', await server.inject('/api/v1/persons?search=%ff')],
            ['a bad signed file link (403)', await server.inject('/files/not-a-token.nor-a-signature')],
            ['the reference', await server.inject('/api/v1/openapi.json')],
            ['the reference page', await server.inject('/docs')],
            ['liveness', await server.inject('/healthz')],
            ['readiness', await server.inject('/readyz')],
            ['a page of the site', await server.inject('/login')],
            ['a page behind sign-in (302)', await server.inject('/manage/apis')],
            ['a form without its token (a 403 page)', await server.inject({ method: 'POST', url: '/login', payload: { email: 'a@example.com', password: 'not the password' } })],
            ['a page the site does not have (404)', await server.inject('/manage/nothing-here')]
        ];

        const ids = answers.map(([what, response]) => madeIdOf(response, what));
        expect(new Set(ids).size).to.equal(ids.length);
        // Random throughout: no part counts the requests, nor is shared by the ids of one instance.
        for (const length of [6, 12]) {
            expect(new Set(ids.map((id) => id.slice(0, 4 + length))).size, `ids sharing their first ${length} characters`).to.equal(ids.length);
        }

        // The site's extension put a page in the place of the error: the id is still there.
        const page = answers.find(([what]) => what.startsWith('a form without'))![1];
        expect(page.statusCode).to.equal(403);
        expect(page.headers['content-type']).to.contain('text/html');
    });

    it('is on a signed file link\'s bytes and on the redirect to them', async () => {

        const family = await familyWithKey(server);
        const picture = dataOf(await upload(family, 'gallery', sampleFile('png')), 201);
        const file = await server.inject(pathOf(picture.url));
        expect(file.statusCode).to.equal(200);
        madeIdOf(file, 'a gallery file');

        const document = dataOf(await upload(family, 'documents', sampleFile('pdf')), 201);
        const redirect = await family.inject('GET', `/api/v1/documents/${document.id}/file`);
        expect(redirect.statusCode).to.equal(302);
        expect(madeIdOf(redirect, 'the redirect')).to.not.equal(madeIdOf(file, 'a gallery file'));
    });

    it('is on answers over real HTTP, the change stream\'s headers included', async () => {

        const family = await familyWithKey(server);
        const ids = [];
        for (const path of ['/healthz', '/api/v1/persons', '/nowhere']) {
            const response = await fetch(`http://127.0.0.1:${server.info.port}${path}`, { headers: { authorization: `Bearer ${family.key}` } });
            await response.arrayBuffer();
            ids.push(madeIdOf({ headers: { 'x-request-id': response.headers.get('x-request-id') ?? undefined } }, path));
        }

        const stream = await RawStream.open(server, family.key);
        try {
            expect(stream.statusCode).to.equal(200);
            ids.push(madeIdOf(stream.response, 'the change stream'));
        }
        finally {
            stream.close();
        }

        expect(new Set(ids).size).to.equal(ids.length);
    });

    it('is the service\'s own, whatever X-Request-Id a client sends when nobody is trusted (the default)', async () => {

        const response = await server.inject({ url: '/healthz', headers: { 'x-request-id': 'chosen-by-the-client' } });
        expect(madeIdOf(response, 'a client\'s id')).to.not.equal('chosen-by-the-client');
    });

    it('is named by the 500\'s message and by the log line of the fault, the same id', async () => {

        const family = await familyWithKey(server);
        const { response, logged } = await withFailingChangeLog(server, () => family.inject('POST', '/api/v1/persons', createBody('persons')));
        expect(response.statusCode).to.equal(500);
        const id = madeIdOf(response, 'a 500');
        expect(bodyOf(response)).to.equal({
            statusCode: 500,
            error: 'Internal Server Error',
            message: `An internal server error occurred. Quote request id ${id} when reporting it.`,
            code: 'internal_error'
        });
        expect(response.payload).to.not.contain('injected fault');

        const lines = logged.filter((line) => line.includes('[request,error]'));
        expect(lines).to.have.length(1);            // once, though hapi tells of the 500 twice
        expect(lines[0]).to.contain(`[request,error] ${id} POST /api/v1/persons: `);
        expect(lines[0]).to.contain('injected fault');
    });

    it('is a field of the 500\'s log line in JSON logs (LOG_FORMAT=json), with the method and path, the stack inside the line', async () => {

        const jsonLogged = await testServer({ env: { LOG_FORMAT: 'json' } });
        try {
            const family = await familyWithKey(jsonLogged);
            const { response, logged } = await withFailingChangeLog(jsonLogged, () => family.inject('POST', '/api/v1/persons', createBody('persons')));
            expect(response.statusCode).to.equal(500);
            const id = madeIdOf(response, 'a 500');
            const lines = logged.map((line) => JSON.parse(line)).filter((line) => line.tags.includes('request'));
            expect(lines).to.have.length(1);
            expect(lines[0]).to.include({ level: 'error', request_id: id, method: 'POST', path: '/api/v1/persons' });
            expect(lines[0].message as string).to.startWith(`${id} POST /api/v1/persons: `);
            expect(lines[0].message as string).to.contain('injected fault');
        }
        finally {
            await jsonLogged.stop();
        }
    });

    it('is on the answers written straight on the connection, to bytes Node cannot read (431, 400)', async () => {

        const tooLong = parsedAnswer(await rawExchange(server, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: from-the-client\r\nX-Padding: ${'a'.repeat(Http.maxHeaderSize)}\r\n\r\n`));
        expect(tooLong.statusLine).to.equal('HTTP/1.1 431 Request Header Fields Too Large');
        const notHttp = parsedAnswer(await rawExchange(server, 'NOT HTTP AT ALL\r\n\r\n'));
        expect(notHttp.statusLine).to.equal('HTTP/1.1 400 Bad Request');

        const ids = [tooLong, notHttp].map((answer) => madeIdOf(answer, answer.statusLine));
        expect(ids[0]).to.not.equal(ids[1]);
    });
});

describe('X-Request-Id behind a trusted proxy (TRUSTED_PROXIES)', () => {

    let server: Server;

    before(async () => {

        server = await testServer({ env: { TRUSTED_PROXIES: '127.0.0.1' }, policiesDir: oneRequestAnHour() });
    });

    after(() => server.stop());

    /** server.inject from `remoteAddress` (127.0.0.1, the proxy, unless said) with `X-Request-Id: id`. */
    const withId = (id: string, options: Partial<ServerInjectOptions> = {}) => server.inject({ url: '/healthz', ...options, headers: { 'x-request-id': id, ...options.headers } });

    it('keeps the proxy\'s id: 1 to 128 letters, digits and . _ : -', async () => {

        const nginx = '0123456789abcdef0123456789abcdef';
        for (const id of [nginx, 'a', 'f'.repeat(128), '7c9e6679-7425-40de-944b-e07fc1f90ae7', 'Root.1:x_y-z']) {
            expect((await withId(id)).headers['x-request-id'], id).to.equal(id);
        }
    });

    it('replaces a malformed one with its own', async () => {

        for (const id of ['f'.repeat(129), 'two words', 'a/b', 'a<script>', 'a;b', 'quoted"id', '']) {
            const response = await withId(id);
            expect(response.statusCode).to.equal(200);
            expect(madeIdOf(response, id)).to.not.equal(id);
        }

        // Two headers are one to Node, joined with ", ".
        const twice = await server.inject({ url: '/healthz', headers: { 'x-request-id': ['one', 'two'] as unknown as string } });
        madeIdOf(twice, 'two ids');
    });

    it('replaces the id of a peer that is not a trusted proxy, even one naming a trusted proxy in X-Forwarded-For', async () => {

        const response = await withId('from-a-client', { remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '127.0.0.1' } });
        expect(madeIdOf(response, 'an untrusted peer')).to.not.equal('from-a-client');
    });

    it('keeps the proxy\'s id on the gateway\'s refusals (401, 429) and names it in a 500 and its log line', async () => {

        expect((await withId('proxy-401', { url: '/api/v1/persons' })).headers['x-request-id']).to.equal('proxy-401');

        const family = await familyWithKey(server);
        const admitted = await family.inject('GET', '/api/v1/persons', undefined, { 'x-request-id': 'proxy-200' });
        expect(admitted.statusCode).to.equal(200);
        expect(admitted.headers['x-request-id']).to.equal('proxy-200');
        const limited = await family.inject('GET', '/api/v1/persons', undefined, { 'x-request-id': 'proxy-429' });
        expect(limited.statusCode).to.equal(429);
        expect(limited.headers['x-request-id']).to.equal('proxy-429');

        const another = await familyWithKey(server);
        const { response, logged } = await withFailingChangeLog(server, () => another.inject('POST', '/api/v1/persons', createBody('persons'), { 'x-request-id': 'proxy-500' }));
        expect(response.statusCode).to.equal(500);
        expect(response.headers['x-request-id']).to.equal('proxy-500');
        expect(bodyOf(response).message).to.equal('An internal server error occurred. Quote request id proxy-500 when reporting it.');
        expect(logged.join('')).to.contain('[request,error] proxy-500 POST /api/v1/persons: ');
    });
});
