import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { projectRoot } from '../../lib/config';
import { newPerson } from '../gateway/requests';
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

describe('A second version of the API, declared in gateway.yaml only', () => {

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
        expect(bodyOf(v2).message).to.equal('No route GET /api/v2/nothing: /api/v2/openapi.json lists the API\'s paths.');
        const outside = await server.inject('/nothing');
        expect(bodyOf(outside).message).to.equal('No route GET /nothing: /api/v1/openapi.json lists the API\'s paths.');
        const aggregate = await family.inject('GET', '/api/v2/all?unknown=1');
        expect(aggregate.statusCode).to.equal(400);
        expect(bodyOf(aggregate).message).to.equal('"unknown" is not a query parameter of /api/v2/all');
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

    it('leaves /api/v1 as it was: its reference and its page are those of the shipped gateway.yaml', async () => {

        for (const path of ['/api/v1/openapi.json', '/docs']) {
            const [before, after] = await Promise.all([shipped.inject(path), server.inject(path)]);
            expect(after.statusCode, path).to.equal(200);
            expect(after.payload, path).to.equal(before.payload);
        }

        expect(shipped.table().map((route) => `${route.method} ${route.path}`).sort())
            .to.equal(server.table().filter((route) => !route.path.startsWith('/api/v2') && route.path !== '/docs/api/v2').map((route) => `${route.method} ${route.path}`).sort());
    });
});

describe('A route group\'s plugins', () => {

    it('are plugins the deployment knows', async () => {

        const file = editedTwoVersions('plugins: [records, files, stream, docs]\n    auth:\n      scheme: api-key\n    policies:\n      - name: plan-gate\n      - name: family-suspension\n      - name: rate-limit\n      - name: resource-scope\n      - name: operation-scope\n  - name: family-api-v2', 'plugins: [records, ledger]\n    auth:\n      scheme: api-key\n    policies:\n      - name: plan-gate\n  - name: family-api-v2');
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
