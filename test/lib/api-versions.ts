import Fs from 'fs';
import Http from 'http';
import Path from 'path';

import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { projectRoot } from '../../lib/config';
import { newPerson } from '../gateway/requests';
import { keptLog } from '../helpers/kept-log';
import { editPolicyFile } from '../helpers/policy-files';
import { familyWithKey, scratchDirectory, testServer, type FamilyFixture } from '../helpers/server';
import { pathOf, sampleFile } from '../plugins/files/fixtures';
import { bodyOf, dataOf } from '../plugins/records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const twoVersions = Path.join(projectRoot, 'test', 'fixtures', 'two-versions', 'gateway.yaml');

/** The fixture with `from` replaced by `to`, in a scratch file. */
function editedTwoVersions(from: string, to: string): string {

    const text = Fs.readFileSync(twoVersions, 'utf8');
    expect(text).to.include(from);
    const file = Path.join(scratchDirectory(), 'gateway.yaml');
    Fs.writeFileSync(file, text.replace(from, to));
    return file;
}

describe('A second version of the API, declared in gateway.yaml only (v1 deprecated there)', () => {

    let shipped: Server;
    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        shipped = await testServer();
        server = await testServer({ shareWith: shipped, env: { GATEWAY_CONFIG: twoVersions } });
        family = await familyWithKey(server);
    });

    after(async () => {

        await server.stop();
        await shipped.stop();
    });

    it('serves a key\'s records at /api/v2, the same records as /api/v1', async () => {

        const created = await family.inject('POST', '/api/v2/persons', newPerson);
        const { id } = dataOf(created, 201);
        expect(created.headers.location).to.equal(`${server.app.services.config.publicBaseUrl}/api/v2/persons/${id}`);

        expect(dataOf(await family.inject('GET', '/api/v2/persons')).map((person: { id: string }) => person.id)).to.equal([id]);
        expect(dataOf(await family.inject('GET', `/api/v1/persons/${id}`)).first_name).to.equal(newPerson.first_name);
        dataOf(await family.inject('GET', '/api/v2/all'));
    });

    it('puts every /api/v2 route behind its own group\'s key check and policy chain', async () => {

        for (const path of ['/api/v2/persons', '/api/v2/all', '/api/v2/events/stream', '/api/v2/documents/doc_x/file']) {
            const answer = await server.inject(path);
            expect(answer.statusCode, path).to.equal(401);
        }

        const route = server.match('GET', '/api/v2/persons')!;
        expect(route.settings.auth!.strategies).to.equal(['family-api-v2']);
        expect(server.match('GET', '/api/v1/persons')!.settings.auth!.strategies).to.equal(['family-api']);
    });

    it('uploads at /api/v2, with the signed URLs every version shares', async () => {

        const file = sampleFile('png');
        const uploaded = await family.inject('POST', '/api/v2/gallery', { title: 'Upload', original_name: 'file.png', file_base64: file.toString('base64') });
        const { id, url } = dataOf(uploaded, 201);
        expect(uploaded.headers.location as string).to.endWith(`/api/v2/gallery/${id}`);
        expect(pathOf(url)).to.startWith('/files/');
        expect((await server.inject(pathOf(url))).rawPayload).to.equal(file);
        expect(pathOf(dataOf(await family.inject('GET', `/api/v1/gallery/${id}`)).url)).to.startWith('/files/');
    });

    it('names each version in its own words: the reference of the path, the path of the aggregate', async () => {

        const v1 = await family.inject('GET', '/api/v1/nothing');
        expect(bodyOf(v1).message).to.equal('No route GET /api/v1/nothing: /api/v1/openapi.json lists the API\'s paths.');
        const v2 = await family.inject('GET', '/api/v2/nothing');
        expect(bodyOf(v2).detail).to.equal('No route GET /api/v2/nothing: /api/v2/openapi.json lists the API\'s paths.');
        const outside = await server.inject('/nothing');
        expect(bodyOf(outside).message).to.equal('No route GET /nothing: /api/v1/openapi.json lists the API\'s paths.');
        const aggregate = await family.inject('GET', '/api/v2/all?unknown=1');
        expect(aggregate.statusCode).to.equal(400);
        expect(bodyOf(aggregate).detail).to.equal('"unknown" is not a query parameter of /api/v2/all');
    });

    it('documents each version in its own public reference', async () => {

        const v2 = await server.inject('/api/v2/openapi.json');
        expect(v2.statusCode).to.equal(200);
        const paths = Object.keys(JSON.parse(v2.payload).paths);
        expect(paths).to.include(['/api/v2/persons', '/api/v2/events/stream', '/api/v2/documents/{id}/file', '/files/{token}']);
        expect(paths.filter((path) => path.startsWith('/api/v1'))).to.equal([]);
        expect(Object.keys(JSON.parse(v2.payload).components.securitySchemes)).to.equal(['family-api-v2']);
        expect((await server.inject('/docs/api/v2')).payload).to.include('/api/v2/openapi.json');
    });

    it('offers a switch between the versions on each reference page, without script', async () => {

        const v1 = (await server.inject('/docs')).payload;
        expect(v1).to.include('<p class="versions">API versions: <strong aria-current="page">v1 (deprecated)</strong> · <a href="/docs/api/v2">v2</a></p>');
        const v2 = (await server.inject('/docs/api/v2')).payload;
        expect(v2).to.include('<p class="versions">API versions: <a href="/docs">v1 (deprecated)</a> · <strong aria-current="page">v2</strong></p>');
        expect(v2).to.not.include('<script');
    });

    it('leaves /api/v1\'s reference as it was: that of the shipped gateway.yaml, whatever v1\'s status', async () => {

        const [before, after] = await Promise.all([shipped.inject('/api/v1/openapi.json'), server.inject('/api/v1/openapi.json')]);
        expect(after.statusCode).to.equal(200);
        expect(after.payload).to.equal(before.payload);
        expect(shipped.table().map((route) => `${route.method} ${route.path}`).sort()).to.equal(server.table().map((route) => `${route.method} ${route.path}`).sort());
    });
});

describe('/api/v2 errors, as RFC 9457 problem details', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        // The failure the 500 test makes is logged, and kept out of the test run's output.
        server = await testServer({ log: keptLog().log });
        family = await familyWithKey(server);
    });

    after(() => server.stop());

    /** Checks `answer` is a problem details answer of `status` and `code`, with every member the reference promises. */
    const expectProblem = (answer: ServerInjectResponse, status: number, code: string) => {

        expect(answer.statusCode, answer.payload).to.equal(status);
        expect(answer.headers['content-type']).to.equal('application/problem+json; charset=utf-8');
        const problem = bodyOf(answer);
        expect(Object.keys(problem).sort()).to.equal(['code', 'detail', 'instance', 'status', 'title', 'type']);
        expect(problem).to.include({ type: `${server.app.services.config.publicBaseUrl}/docs/api/v2#error-${code}`, status, code, instance: answer.headers['x-request-id'] });
        expect(problem.title).to.equal(Http.STATUS_CODES[status]);
        expect(problem.detail).to.be.a.string().and.not.be.empty();
        return problem;
    };

    it('answers every kind of error so: the key, the scopes, validation, routing, a record and a failure', async () => {

        expectProblem(await server.inject('/api/v2/persons'), 401, 'invalid_key');
        const readOnly = await familyWithKey(server, { operations: ['read'] });
        expectProblem(await readOnly.inject('POST', '/api/v2/persons', newPerson), 403, 'operation_scope');
        expectProblem(await family.inject('GET', '/api/v2/persons?sort=nothing'), 400, 'invalid_request');
        expectProblem(await family.inject('GET', '/api/v2/persons/per_nothing'), 404, 'not_found');
        expectProblem(await family.inject('GET', '/api/v2/nothing'), 404, 'not_found');
        const method = expectProblem(await family.inject('PUT', '/api/v2/persons'), 405, 'method_not_allowed');
        expect(method.detail).to.equal('/api/v2/persons does not take PUT: it takes GET, HEAD, POST.');
        expectProblem(await family.inject('POST', '/api/v2/persons', 'first_name=Anna', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
        expectProblem(await server.inject('/api/v2/openapi.json?x=1'), 400, 'invalid_request');
    });

    it('names the request id to quote in a 500, as v1 does', async () => {

        const route = server.match('GET', '/api/v2/persons')!;
        const original = route.settings.handler;
        (route.settings as { handler: unknown }).handler = () => {

            throw new Error('broken');
        };

        try {
            const problem = expectProblem(await family.inject('GET', '/api/v2/persons'), 500, 'internal_error');
            expect(problem.detail).to.equal(`An internal server error occurred. Quote request id ${problem.instance} when reporting it.`);
        }
        finally {
            (route.settings as { handler: unknown }).handler = original;
        }
    });

    it('keeps v1\'s errors as they were: JSON with statusCode, error, message and code', async () => {

        for (const answer of [await server.inject('/api/v1/persons'), await family.inject('GET', '/api/v1/persons/per_nothing'), await family.inject('PUT', '/api/v1/persons')]) {
            expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
            expect(Object.keys(bodyOf(answer)).sort()).to.equal(['code', 'error', 'message', 'statusCode']);
            expect(answer.headers.deprecation).to.not.exist();
        }
    });

    it('describes each code on the v2 reference page, where a problem\'s type points', async () => {

        const page = (await server.inject('/docs/api/v2')).payload;
        for (const code of ['invalid_key', 'not_found', 'method_not_allowed', 'internal_error']) {
            expect(page).to.include(`<tr id="error-${code}">`);
        }

        expect(page).to.include('RFC 9457');
    });
});

describe('A deprecated version', () => {

    let server: Server;
    let family: FamilyFixture;
    let file: string;
    const kept = keptLog();

    before(async () => {

        file = editedTwoVersions('status: deprecated', 'status: deprecated');
        server = await testServer({ env: { GATEWAY_CONFIG: file, WATCH_POLICIES: 'true' }, log: kept.log });
        family = await familyWithKey(server);
    });

    after(() => server.stop());

    const deprecation = { deprecation: '@1780272000', sunset: 'Tue, 01 Jun 2027 00:00:00 GMT', link: '<https://records.example/docs/migrating-to-v2>; rel="deprecation"; type="text/html"' };

    it('says so on every answer, success or error (Deprecation, Sunset and the Link to the migration notes); the current one does not', async () => {

        for (const answer of [await family.inject('GET', '/api/v1/persons'), await server.inject('/api/v1/persons'), await server.inject('/api/v1/openapi.json')]) {
            expect(answer.headers).to.include(deprecation);
        }

        for (const answer of [await family.inject('GET', '/api/v2/persons'), await server.inject('/api/v2/persons'), await server.inject('/docs')]) {
            expect(answer.headers.deprecation).to.not.exist();
            expect(answer.headers.sunset).to.not.exist();
        }
    });

    it('becomes current again, or deprecated, by a reload of gateway.yaml', async () => {

        editPolicyFile(Path.dirname(file), 'gateway.yaml', 'status: deprecated\n      deprecation: 2026-06-01T00:00:00Z\n      sunset: 2027-06-01T00:00:00Z\n      migration_notes: https://records.example/docs/migrating-to-v2', 'status: current');
        process.emit('SIGHUP', 'SIGHUP');
        expect((await family.inject('GET', '/api/v1/persons')).headers.deprecation).to.not.exist();

        editPolicyFile(Path.dirname(file), 'gateway.yaml', 'name: v2\n      error_format: problem', 'name: v2\n      error_format: problem\n      status: deprecated\n      deprecation: 2027-01-01T00:00:00Z\n      migration_notes: /docs/api/v3');
        process.emit('SIGHUP', 'SIGHUP');
        const answer = await family.inject('GET', '/api/v2/persons');
        expect(answer.headers).to.include({ deprecation: '@1798761600', link: '</docs/api/v3>; rel="deprecation"; type="text/html"' });
        expect(answer.headers.sunset).to.not.exist();
    });

    it('keeps its name and error format until a restart', () => {

        kept.lines.length = 0;
        editPolicyFile(Path.dirname(file), 'gateway.yaml', 'error_format: problem', 'error_format: boom');
        process.emit('SIGHUP', 'SIGHUP');
        expect(kept.lines.join('\n')).to.include('route_groups[1]: its name, paths, public_paths, plugins, auth scheme, version name and error_format change only with a restart');
    });
});

describe('A route group\'s version block', () => {

    const refused = async (from: string, to: string, problem: string | RegExp) => {

        await expect(testServer({ env: { GATEWAY_CONFIG: editedTwoVersions(from, to) } })).to.reject(problem);
    };

    it('names a deprecated version\'s date and migration notes', async () => {

        await refused('      deprecation: 2026-06-01T00:00:00Z\n', '', /route_groups\[0\]\.version\.deprecation: is required/);
        await refused('      migration_notes: https://records.example/docs/migrating-to-v2\n', '', /route_groups\[0\]\.version\.migration_notes: is required/);
        await refused('sunset: 2027-06-01T00:00:00Z', 'sunset: 2026-01-01T00:00:00Z', /route_groups\[0\]\.version: "sunset" must come after "deprecation"/);
        await refused('status: deprecated', 'status: current', /route_groups\[0\]\.version\.deprecation: is not allowed/);
        await refused('status: deprecated', 'status: retired', /route_groups\[0\]\.version\.status: must be one of \[current, deprecated\]/);
    });

    it('names a version once, as v and a number, and an error format the service knows', async () => {

        await refused('name: v2', 'name: v1', /route_groups: the version "v1" is served by more than one route group/);
        await refused('name: v2', 'name: two', /"two" must be v and a number, as v2/);
        await refused('error_format: problem', 'error_format: xml', /route_groups\[1\]\.version\.error_format/);
    });
});

describe('A route group\'s plugins', () => {

    it('are plugins the deployment knows', async () => {

        const file = editedTwoVersions('public_paths: [/api/v1/openapi.json]\n    plugins: [records, files, stream, docs]', 'public_paths: [/api/v1/openapi.json]\n    plugins: [records, ledger]');
        await expect(testServer({ env: { GATEWAY_CONFIG: file } })).to.reject('gateway.yaml: route group "family-api" names unknown plugins ledger (known: records, files, stream, docs, messaging)');
    });

    it('are registered under one path', async () => {

        const file = editedTwoVersions('paths: [/api/v2]', 'paths: [/api/v2, /api/two]');
        await expect(testServer({ env: { GATEWAY_CONFIG: file } })).to.reject('gateway.yaml: route group "family-api-v2" names plugins, which are registered under one path: it has 2');
    });

    it('are each named once', async () => {

        const file = editedTwoVersions('paths: [/api/v2]\n    public_paths: [/api/v2/openapi.json]\n    plugins: [records, files, stream, docs]', 'paths: [/api/v2]\n    public_paths: [/api/v2/openapi.json]\n    plugins: [records, records]');
        await expect(testServer({ env: { GATEWAY_CONFIG: file } })).to.reject(/route_groups\[1\]\.plugins\[1\]/);
    });
});
