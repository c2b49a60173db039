import Http from 'http';
import Zlib from 'zlib';

import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { resources } from '../../../models/resources';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { createBody, idPattern } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const publicBaseUrl = 'https://records.example.test';

describe('records API v1 over HTTP', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        server = await testServer({ env: { PUBLIC_BASE_URL: publicBaseUrl } });
        await server.start();
        family = await familyWithKey(server);
    });

    after(() => server.stop());

    /** A real request over loopback to the listening server. */
    function request(method: string, path: string, options: { body?: string; key?: string | null; contentType?: string } = {}): Promise<Response> {

        const headers: Record<string, string> = {};
        const key = options.key === undefined ? family.key : options.key;
        if (key !== null) {
            headers.authorization = `Bearer ${key}`;
        }

        if (options.body !== undefined) {
            headers['content-type'] = options.contentType ?? 'application/json';
        }

        return fetch(`${server.info.uri}${path}`, { method, headers, body: options.body, redirect: 'manual' });
    }

    it('listens on a port of its own', () => {

        expect(Number(server.info.port)).to.be.above(0);
        expect(server.info.uri).to.equal(`http://127.0.0.1:${server.info.port}`);
    });

    it('creates a person, answering 201 with an absolute Location on PUBLIC_BASE_URL, and lists it', async () => {

        const body = createBody('persons');
        const created = await request('POST', '/api/v1/persons', { body: JSON.stringify(body) });
        expect(created.status).to.equal(201);
        expect(created.headers.get('content-type')).to.match(/^application\/json/);

        const { data } = await created.json() as { data: Record<string, unknown> };
        expect(data.id).to.match(idPattern(resources.persons));
        expect(data).to.include({ ...body, revision: 1 });
        expect(created.headers.get('location')).to.equal(`${publicBaseUrl}/api/v1/persons/${data.id}`);

        const read = await request('GET', new URL(created.headers.get('location')!).pathname);
        expect(read.status).to.equal(200);
        expect(await read.json()).to.equal({ data });

        const listed = await request('GET', '/api/v1/persons');
        expect(listed.status).to.equal(200);
        expect(await listed.json()).to.equal({ data: [data], meta: { resource: 'persons', count: 1, next_cursor: null } });
    });

    it('links the next page on PUBLIC_BASE_URL', async () => {

        const own = await familyWithKey(server);
        for (let variant = 0; variant < 3; ++variant) {
            expect((await request('POST', '/api/v1/trees', { key: own.key, body: JSON.stringify(createBody('trees', { variant })) })).status).to.equal(201);
        }

        const first = await request('GET', '/api/v1/trees?limit=2&sort=name', { key: own.key });
        const { meta } = await first.json() as { meta: { next_cursor: string } };
        expect(first.headers.get('link')).to.equal(`<${publicBaseUrl}/api/v1/trees?limit=2&sort=name&cursor=${meta.next_cursor}>; rel="next"`);

        const second = await request('GET', `/api/v1/trees?limit=2&sort=name&cursor=${meta.next_cursor}`, { key: own.key });
        expect((await second.json() as { data: unknown[] }).data).to.have.length(1);
        expect(second.headers.get('link')).to.equal(null);
    });

    it('compresses lists at zlib\'s fastest level when the client accepts gzip', async () => {

        const lists = server.table().filter((entry) => entry.method === 'get' && /^\/api\/v1\/\w+$/.test(entry.path));
        expect(lists.map((route) => route.path)).to.include(['/api/v1/persons', '/api/v1/all']);
        for (const route of lists) {
            expect(route.settings.compression, route.path).to.equal({ gzip: { level: 1 }, deflate: { level: 1 } });
        }

        for (let index = 0; index < 40; index++) {
            expect((await family.inject('POST', '/api/v1/persons', createBody('persons', { variant: index }))).statusCode).to.equal(201);
        }

        const plain = await family.inject('GET', '/api/v1/persons?format=csv', undefined, { 'accept-encoding': 'identity' });
        const gzipped = await family.inject('GET', '/api/v1/persons?format=csv', undefined, { 'accept-encoding': 'gzip' });
        expect(gzipped.headers['content-encoding']).to.equal('gzip');
        expect(Zlib.gunzipSync(gzipped.rawPayload).toString('utf8')).to.equal(plain.payload);
    });

    it('answers 401 invalid_key with WWW-Authenticate: Bearer without a key or with a wrong one', async () => {

        for (const key of [null, 'frk_not-a-real-key', `${family.key.slice(0, -1)}${family.key.endsWith('A') ? 'B' : 'A'}`]) {
            const response = await request('GET', '/api/v1/persons', { key });
            expect(response.status).to.equal(401);
            expect(response.headers.get('www-authenticate')).to.match(/^Bearer\b/);
            expect(await response.json()).to.include({ statusCode: 401, code: 'invalid_key' });
        }
    });

    it('answers 401 invalid_key to two Authorization headers, even of the same key: Node keeps only the first, a proxy in front may have read the other', async () => {

        const other = await familyWithKey(server);
        for (const keys of [[family.key, family.key], [family.key, other.key], [family.key, 'frk_not-a-real-key']]) {
            const response = await new Promise<{ status: number; headers: Http.IncomingHttpHeaders; body: string }>((resolve, reject) => {

                const headers = ['host', new URL(server.info.uri).host, ...keys.flatMap((key) => ['authorization', `Bearer ${key}`])];        // two header lines
                Http.get(`${server.info.uri}/api/v1/persons`, { headers }, (answer) => {

                    let body = '';
                    answer.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body }));
                }).on('error', reject);
            });

            expect(response.status).to.equal(401);
            expect(response.headers['www-authenticate']).to.match(/^Bearer\b/);
            expect(JSON.parse(response.body)).to.include({ statusCode: 401, code: 'invalid_key', message: 'More than one Authorization header: send one, Authorization: Bearer <API key>.' });
        }
    });

    it('serves a run of ordinary requests within the rate limit, saying how much is left', async () => {

        const own = await familyWithKey(server);
        const remaining: number[] = [];
        for (let count = 0; count < 10; ++count) {
            const response = await request('GET', '/api/v1/persons', { key: own.key });
            expect(response.status).to.equal(200);
            expect(response.headers.get('retry-after')).to.equal(null);
            expect(response.headers.get('ratelimit-policy')).to.exist();
            remaining.push(Number(response.headers.get('ratelimit-remaining')));
            await response.arrayBuffer();
        }

        // One less each time, unless a new clock-aligned window began in between.
        expect(remaining.every((left, index) => index === 0 || left === remaining[index - 1] - 1 || left > remaining[index - 1])).to.be.true();
    });

    it('refuses malformed JSON with 400, other content types with 415 and a body over 1 MB with 413', async () => {

        const malformed = await request('POST', '/api/v1/persons', { body: '{"first_name":' });
        expect(malformed.status).to.equal(400);
        expect(await malformed.json()).to.include({ code: 'invalid_request' });

        const text = await request('POST', '/api/v1/persons', { body: 'Ada', contentType: 'text/plain' });
        expect(text.status).to.equal(415);
        expect(await text.json()).to.include({ code: 'unsupported_media_type' });

        const huge = await request('POST', '/api/v1/persons', { body: JSON.stringify({ ...createBody('persons'), notes: 'x'.repeat(1024 * 1024 + 1) }) });
        expect(huge.status).to.equal(413);
        expect(await huge.json()).to.include({ code: 'too_large' });
    });

    it('lets no cache keep an answer of family records, in any format, nor an error', async () => {

        for (const path of ['/api/v1/persons', '/api/v1/persons?format=csv', '/api/v1/persons?format=pdf', '/api/v1/all?format=html', '/api/v1/persons/per_doesnotexist1']) {
            const response = await request('GET', path);
            expect(response.headers.get('cache-control'), path).to.equal('no-store');
            await response.arrayBuffer();
        }

        const unauthenticated = await request('GET', '/api/v1/persons', { key: null });
        expect(unauthenticated.status).to.equal(401);
        expect(unauthenticated.headers.get('cache-control')).to.equal('no-store');
        await unauthenticated.arrayBuffer();
    });

    it('answers a Range on the API with the whole answer: no 206, and no 416 without a code or RateLimit headers', async () => {

        const created = await request('POST', '/api/v1/trees', { body: JSON.stringify(createBody('trees')) });
        const { data } = await created.json() as { data: { id: string } };
        for (const path of ['/api/v1/trees', `/api/v1/trees/${data.id}`, '/api/v1/all']) {
            const whole = await family.inject('GET', path);
            expect(whole.statusCode, path).to.equal(200);
            expect(whole.headers['accept-ranges'], path).to.not.exist();
            for (const range of ['bytes=0-10', 'bytes=99999999-']) {
                const response = await family.inject('GET', path, undefined, { range });
                expect(response.statusCode, `${path} ${range}`).to.equal(200);
                expect(response.headers['content-range'], `${path} ${range}`).to.not.exist();
                expect(response.headers.ratelimit, `${path} ${range}`).to.exist();
                expect(JSON.parse(response.payload).data, `${path} ${range}`).to.equal(JSON.parse(whole.payload).data);
            }
        }
    });

    it('deletes over HTTP and then answers 404 not_found', async () => {

        const created = await request('POST', '/api/v1/trees', { body: JSON.stringify(createBody('trees')) });
        const { data } = await created.json() as { data: { id: string } };

        const deleted = await request('DELETE', `/api/v1/trees/${data.id}`);
        expect(await deleted.json()).to.equal({ data: { id: data.id, deleted: true } });

        const gone = await request('GET', `/api/v1/trees/${data.id}`);
        expect(gone.status).to.equal(404);
        expect(await gone.json()).to.include({ code: 'not_found' });
    });
});
