import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import Hapi, { type Server } from '@hapi/hapi';

import { allowedMethods } from '../../lib/unrouted';
import { parsedAnswer, rawExchange } from '../helpers/raw-http';
import { familyWithKey, testServer, type FamilyFixture } from '../helpers/server';
import { createBody, dataOf, expectError } from '../plugins/records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('requests no route takes', () => {

    let server: Server;
    let family: FamilyFixture;
    let personId: string;

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        personId = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201).id;
    });

    after(() => server.stop());

    it('lists the methods a path takes, HEAD with GET', () => {

        expect(allowedMethods(server, '/api/v1/persons')).to.equal(['GET', 'HEAD', 'POST']);
        expect(allowedMethods(server, `/api/v1/persons/${personId}`)).to.equal(['GET', 'HEAD', 'PATCH', 'DELETE']);
        expect(allowedMethods(server, '/api/v1/all')).to.equal(['GET', 'HEAD']);
        expect(allowedMethods(server, '/api/v1/nothing')).to.equal([]);
    });

    it('lists only the methods of the most specific path, as hapi routes each method', () => {

        // "stream" is also an {id} of /api/v1/events/{id}, which takes PATCH and DELETE; hapi routes those to that path, not to the stream.
        expect(allowedMethods(server, '/api/v1/events/stream')).to.equal(['GET', 'HEAD']);
        expect(allowedMethods(server, '/api/v1/events/evt_x')).to.equal(['GET', 'HEAD', 'PATCH', 'DELETE']);
        expect(allowedMethods(server, '/api/v1/events')).to.equal(['GET', 'HEAD', 'POST']);
    });

    it('ranks paths as hapi\'s router does: a literal segment, then one mixed with a parameter, then a parameter, then a wildcard, the first that differs deciding', () => {

        const routes = Hapi.server();
        const handler = () => null;
        routes.route([
            { method: 'GET', path: '/r/{rest*}', handler },
            { method: 'POST', path: '/r/{id}', handler },
            { method: 'PUT', path: '/r/{name}.json', handler },
            { method: 'DELETE', path: '/r/fixed', handler },
            { method: 'GET', path: '/s/{a}/c', handler },
            { method: 'POST', path: '/s/b/{c}', handler }
        ]);

        expect(allowedMethods(routes, '/r/fixed')).to.equal(['DELETE']);
        expect(allowedMethods(routes, '/r/x.json')).to.equal(['PUT']);
        expect(allowedMethods(routes, '/r/x')).to.equal(['POST']);
        expect(allowedMethods(routes, '/r/x/y')).to.equal(['GET', 'HEAD']);
        expect(allowedMethods(routes, '/s/b/c')).to.equal(['POST']);
        expect(allowedMethods(routes, '/s/d/c')).to.equal(['GET', 'HEAD']);
    });

    it('answers a method a path does not take with 405 method_not_allowed and an Allow header, not a 404 read as "no such record"', async () => {

        const cases: [string, string, string][] = [
            ['PUT', `/api/v1/persons/${personId}`, 'GET, HEAD, PATCH, DELETE'],
            ['POST', `/api/v1/persons/${personId}`, 'GET, HEAD, PATCH, DELETE'],
            ['PUT', '/api/v1/persons', 'GET, HEAD, POST'],
            ['DELETE', '/api/v1/persons', 'GET, HEAD, POST'],
            ['PATCH', '/api/v1/persons/', 'GET, HEAD, POST'],
            ['POST', '/api/v1/all', 'GET, HEAD'],
            ['OPTIONS', '/api/v1/persons', 'GET, HEAD, POST'],
            ['POST', '/api/v1/openapi.json', 'GET, HEAD'],
            ['PUT', '/api/v1/events/stream', 'GET, HEAD'],
            ['POST', '/api/v1/events/stream', 'GET, HEAD']
        ];
        for (const [method, path, allow] of cases) {
            for (const send of [family.inject, (m: string, url: string) => server.inject({ method: m, url })]) {
                const response = await send(method, path);
                expectError(response, 405, 'method_not_allowed', `does not take ${method}: it takes ${allow}.`);
                expect(response.headers.allow, `${method} ${path}`).to.equal(allow);
                expect(response.headers['cache-control']).to.equal('no-store');
            }
        }

        // The record is still there: nothing was done to it.
        expect(dataOf(await family.inject('GET', `/api/v1/persons/${personId}`)).revision).to.equal(1);
    });

    it('answers a path nothing has with 404 not_found saying there is no such route', async () => {

        for (const [method, path] of [['GET', '/api/v1/nothing'], ['GET', '/api/v1/PERSONS'], ['DELETE', '/api/v3/persons'], ['GET', '/api/v1/persons/x/y']]) {
            const response = await family.inject(method, path);
            expectError(response, 404, 'not_found', `No route ${method} ${path}`);
            expect(response.headers.allow).to.not.exist();
        }
    });

    it('answers a path that is not percent-encoded UTF-8 with 400 invalid_request saying so', async () => {

        for (const path of ['/api/v1/persons/%ff', '/api/v1/persons/%zz', '/api/v1/persons/%', '/api/v1/persons/%E2%82']) {
            expectError(await family.inject('GET', path), 400, 'invalid_request', 'The path is not percent-encoded UTF-8');
        }
    });

    it('answers every method on a path that is not percent-encoded UTF-8 with 400 invalid_request and a request id, with or without a key', async () => {

        await server.start();
        const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE'];
        const bad = ['%', '%zz', '%ff', '%ed%a0%80', '%E2%82', '%%25', '%2', 'x%c0%af'];
        // Under /api/v2, problem details (test/lib/api-versions.ts): the same code, as application/problem+json.
        const places = ['/api/v1/persons/', '/api/v1/trees/', '/api/v1/documents/', '/api/v1/documents/doc_x/file/', '/api/v1/', '/api/v2/', '/files/', '/', '/docs/', '/manage/', '/manage/apis/', '/site/assets/', '/healthz/'];
        const paths = places.flatMap((place) => bad.flatMap((escape) => [`${place}${escape}`, `${place}${escape}/x`]));
        const failures: string[] = [];
        for (const method of methods) {
            for (const path of paths) {
                for (const authorization of ['', `Authorization: Bearer ${family.key}\r\n`]) {
                    const answer = parsedAnswer(await rawExchange(server, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${authorization}Content-Length: 0\r\nConnection: close\r\n\r\n`));
                    const payload = method === 'HEAD' ? { code: 'invalid_request' } : JSON.parse(answer.body || '{}');
                    if (answer.statusLine !== 'HTTP/1.1 400 Bad Request' || payload.code !== 'invalid_request' || !answer.headers['x-request-id'] || !/^application\/(problem\+)?json/.test(answer.headers['content-type'] ?? '')) {
                        failures.push(`${method} ${path}${authorization ? ' (with a key)' : ''}: ${answer.statusLine} ${answer.body.slice(0, 80)}`);
                    }
                }
            }
        }

        expect(failures.slice(0, 20), `${failures.length} failures`).to.equal([]);
    });
});
