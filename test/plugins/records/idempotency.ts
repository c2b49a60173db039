import Crypto from 'crypto';
import Fs from 'fs';

import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createApiKey } from '../../../lib/accounts/api-keys';
import { storageUsed } from '../../../lib/storage-quota';
import type { ResourceName } from '../../../models/resources';
import { deleteExpiredIdempotencyKeys } from '../../../plugins/records/idempotency';
import { keptLog } from '../../helpers/kept-log';
import { editPolicyFile } from '../../helpers/policy-files';
import { allOperations, allResources, copyPolicies, familyWithKey, testServer, testVariant, type FamilyFixture } from '../../helpers/server';
import { sampleFile } from '../files/fixtures';
import { bodyOf, createBody, dataOf, expectError } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const hourMs = 60 * 60 * 1000;

describe(`records API v1: creates with an Idempotency-Key on ${testVariant}`, () => {

    let server: Server;
    // The faults injected below make 500s, each logged: kept, and checked where they are made.
    const serverLog = keptLog([/^\[request,error\] \S+ POST \/api\/v1\/persons: Error: injected fault\n/]);

    before(async () => {

        server = await testServer({ log: serverLog.log });
        // Listening, for the test of requests at the same time over real HTTP.
        await server.start();
    });

    after(() => server.stop());

    const newKey = () => Crypto.randomUUID();
    const keyed = (key: string) => ({ 'idempotency-key': key });
    const models = () => server.app.services.models;
    const recordsOf = (family: FamilyFixture, resource: ResourceName) => models().records[resource].findAll({ where: { family_long_id: family.familyLongId } });
    const createdEvents = (family: FamilyFixture) => models().ChangeEvent.count({ where: { family_long_id: family.familyLongId, action: 'created' } });

    /** A second key of the family, with every scope. */
    async function anotherKeyOf(family: FamilyFixture): Promise<FamilyFixture> {

        const { key, apiKey } = await createApiKey(server.app.services.accounts, { familyLongId: family.familyLongId, name: 'second key', resources: allResources, operations: allOperations, createdBy: 'test' });
        return {
            familyLongId: family.familyLongId,
            keyId: apiKey.id,
            key,
            inject: (method, url, payload, headers = {}) => server.inject({ method, url, headers: { authorization: `Bearer ${key}`, ...headers }, ...(payload === undefined ? {} : { payload: payload as object }) })
        };
    }

    function expectReplayOf(first: ServerInjectResponse, replay: ServerInjectResponse): void {

        expect(replay.statusCode, replay.payload).to.equal(201);
        expect(replay.headers['idempotent-replayed']).to.equal('true');
        expect(replay.headers.location).to.equal(first.headers.location);
        expect(replay.headers['content-type']).to.equal('application/json; charset=utf-8');
        expect(replay.payload).to.equal(first.payload);
        expect(replay.headers.etag).to.equal('"1"');
        expect(replay.headers.etag).to.equal(first.headers.etag);
    }

    it('answers a retry with the first answer, creating once: one record, one change event', async () => {

        const family = await familyWithKey(server);
        const key = newKey();

        const first = await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key));
        const created = dataOf(first, 201);
        expect(first.headers['idempotent-replayed']).to.not.exist();
        expect(first.headers.location as string).to.endWith(`/api/v1/persons/${created.id}`);

        // The same body with its fields in another order is the same request.
        const reordered = Object.fromEntries(Object.entries(createBody('persons')).reverse());
        expectReplayOf(first, await family.inject('POST', '/api/v1/persons', reordered, keyed(key)));
        expectReplayOf(first, await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)));

        expect((await recordsOf(family, 'persons')).map((record) => record.id)).to.equal([created.id]);
        expect(await createdEvents(family)).to.equal(1);
        const entry = await models().IdempotencyKey.findOne({ where: { api_key_id: family.keyId, idempotency_key: key } });
        expect(entry!.get({ plain: true })).to.include({ family_long_id: family.familyLongId, method: 'POST', path: '/api/v1/persons', response_status: 201, response_body: first.payload, response_location: first.headers.location as string });
        expect(entry!.fingerprint).to.match(/^[0-9a-f]{64}$/);
    });

    it('refuses the key with another body (422 idempotency_key_reused), creating nothing', async () => {

        const family = await familyWithKey(server);
        const key = newKey();
        dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201);

        expectError(await family.inject('POST', '/api/v1/persons', createBody('persons', { variant: 1 }), keyed(key)), 422, 'idempotency_key_reused', 'another request');
        expect(await recordsOf(family, 'persons')).to.have.length(1);
        expect(await createdEvents(family)).to.equal(1);
    });

    it('refuses the key on another path (another resource) with 422, creating nothing', async () => {

        const family = await familyWithKey(server);
        const key = newKey();
        dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201);

        expectError(await family.inject('POST', '/api/v1/events', createBody('events'), keyed(key)), 422, 'idempotency_key_reused', 'POST /api/v1/persons');
        expect(await recordsOf(family, 'events')).to.have.length(0);
    });

    it('keeps keys apart per API key: another key of the family, or of another family, with the same text creates its own record', async () => {

        const family = await familyWithKey(server);
        const secondKey = await anotherKeyOf(family);
        const otherFamily = await familyWithKey(server);
        const key = newKey();

        const ids = [];
        for (const client of [family, secondKey, otherFamily]) {
            const response = await client.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key));
            expect(response.headers['idempotent-replayed']).to.not.exist();
            ids.push(dataOf(response, 201).id);
        }

        expect(new Set(ids).size).to.equal(3);
        expect(await recordsOf(family, 'persons')).to.have.length(2);
        expect(await recordsOf(otherFamily, 'persons')).to.have.length(1);

        // Each replays its own answer.
        expect(dataOf(await secondKey.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201).id).to.equal(ids[1]);
        expect(dataOf(await otherFamily.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201).id).to.equal(ids[2]);
    });

    it('stores nothing for a request that fails, so a corrected retry with the same key is made', async () => {

        const family = await familyWithKey(server);
        const key = newKey();

        expectError(await family.inject('POST', '/api/v1/persons', { ...createBody('persons'), parent_1_id: 'per_00000000000000000000' }, keyed(key)), 400, 'invalid_request', 'parent_1_id');
        expectError(await family.inject('POST', '/api/v1/persons', { ...createBody('persons'), unknown_field: 1 }, keyed(key)), 400, 'invalid_request');
        expect(await models().IdempotencyKey.count({ where: { api_key_id: family.keyId } })).to.equal(0);

        const created = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201);
        expect((await recordsOf(family, 'persons')).map((record) => record.id)).to.equal([created.id]);
    });

    it('stores the record and its entry together or not at all: a failure of either leaves neither', async () => {

        const family = await familyWithKey(server);
        const key = newKey();
        const failing = async (model: { create: unknown }) => {

            const create = model.create;
            model.create = () => Promise.reject(new Error('injected fault'));
            try {
                const response = await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key));
                expect(response.statusCode).to.equal(500);
                expect(serverLog.lines.filter((line) => line.startsWith(`[request,error] ${response.headers['x-request-id']} `))).to.have.length(1);
            }
            finally {
                model.create = create;
            }
        };

        await failing(models().IdempotencyKey);
        await failing(models().ChangeEvent);
        expect(await recordsOf(family, 'persons')).to.have.length(0);
        expect(await models().IdempotencyKey.count({ where: { api_key_id: family.keyId } })).to.equal(0);

        dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201);
        expect(await recordsOf(family, 'persons')).to.have.length(1);
    });

    it('creates a new record for a key whose entry is older than 24 hours', async () => {

        const family = await familyWithKey(server);
        const key = newKey();
        const first = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201);
        await models().IdempotencyKey.update({ created_at: new Date(Date.now() - 25 * hourMs) }, { where: { api_key_id: family.keyId, idempotency_key: key } });

        const response = await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key));
        const second = dataOf(response, 201);
        expect(response.headers['idempotent-replayed']).to.not.exist();
        expect(second.id).to.not.equal(first.id);
        expect(await recordsOf(family, 'persons')).to.have.length(2);

        // The new entry took the old one's place, and is replayed in its turn.
        expect(await models().IdempotencyKey.count({ where: { api_key_id: family.keyId } })).to.equal(1);
        expect(dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201).id).to.equal(second.id);
    });

    it('deletes the entries past 24 hours, and those only', async () => {

        const family = await familyWithKey(server);
        const [old, recent] = [newKey(), newKey()];
        for (const key of [old, recent]) {
            dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201);
        }

        await models().IdempotencyKey.update({ created_at: new Date(Date.now() - 25 * hourMs) }, { where: { api_key_id: family.keyId, idempotency_key: old } });
        await models().IdempotencyKey.update({ created_at: new Date(Date.now() - 23 * hourMs) }, { where: { api_key_id: family.keyId, idempotency_key: recent } });

        expect(await deleteExpiredIdempotencyKeys(models())).to.be.at.least(1);
        expect((await models().IdempotencyKey.findAll({ where: { api_key_id: family.keyId } })).map((entry) => entry.idempotency_key)).to.equal([recent]);
    });

    it('deletes them on the cleanup schedule of records.yaml while the server runs', async () => {

        const policiesDir = copyPolicies();
        editPolicyFile(policiesDir, 'records.yaml', 'cleanup_schedule: "41 * * * *"', 'cleanup_schedule: "* * * * * *"');
        const scheduled = await testServer({ policiesDir });
        try {
            await scheduled.start();
            const family = await familyWithKey(scheduled);
            const entries = scheduled.app.services.models.IdempotencyKey;
            await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(newKey()));
            await entries.update({ created_at: new Date(Date.now() - 25 * hourMs) }, { where: { api_key_id: family.keyId } });

            const stored = () => entries.count({ where: { api_key_id: family.keyId } });
            for (let waited = 0; await stored() > 0 && waited < 5000; waited += 100) {
                await new Promise((resolve) => setTimeout(resolve, 100));
            }

            expect(await stored()).to.equal(0);
        }
        finally {
            await scheduled.stop();
        }
    });

    it('refuses a malformed key with 400 naming the header: empty, over 255 characters, a control character', async () => {

        const family = await familyWithKey(server);
        for (const key of ['', 'k'.repeat(256), 'key\u0001', 'clé']) {
            expectError(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 400, 'invalid_request', 'Idempotency-Key');
        }

        expect(await recordsOf(family, 'persons')).to.have.length(0);
        dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed('k'.repeat(255))), 201);
        dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(' !~')), 201);
    });

    it('ignores the header on other methods', async () => {

        const family = await familyWithKey(server);
        const key = newKey();
        const created = dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons'), keyed(key)), 201);

        const updates = [];
        for (const notes of ['first', 'second']) {
            const response = await family.inject('PATCH', `/api/v1/persons/${created.id}`, { notes }, keyed(key));
            expect(response.headers['idempotent-replayed']).to.not.exist();
            updates.push(dataOf(response).revision);
        }

        expect(updates).to.equal([2, 3]);
    });

    it('uploads once: a retried gallery upload makes one record, stores one file and counts it once in the quota', async () => {

        const family = await familyWithKey(server);
        const file = sampleFile('png', 300);
        const body = { title: 'Beach', original_name: 'beach.png', file_base64: file.toString('base64') };
        const filesDir = server.app.services.config.filesDir;
        const storedFiles = () => (Fs.existsSync(filesDir) ? Fs.readdirSync(filesDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length : 0);
        const filesBefore = storedFiles();
        const key = newKey();

        const first = await family.inject('POST', '/api/v1/gallery', body, keyed(key));
        dataOf(first, 201);
        expectReplayOf(first, await family.inject('POST', '/api/v1/gallery', body, keyed(key)));

        expect(await recordsOf(family, 'gallery')).to.have.length(1);
        expect(storedFiles()).to.equal(filesBefore + 1);
        expect(await storageUsed(models(), family.familyLongId)).to.equal(300);
        expect(await createdEvents(family)).to.equal(1);

        // Another file under the same key is another request.
        expectError(await family.inject('POST', '/api/v1/gallery', { ...body, file_base64: sampleFile('png', 300).toString('base64') }, keyed(key)), 422, 'idempotency_key_reused');
        expect(await recordsOf(family, 'gallery')).to.have.length(1);
    });

    it('creates once when identical requests arrive at the same time over HTTP: every one answers 201 with the same record', async () => {

        const family = await familyWithKey(server);
        const key = newKey();
        const body = JSON.stringify(createBody('persons'));
        const send = () => fetch(`${server.info.uri}/api/v1/persons`, {
            method: 'POST',
            headers: { 'authorization': `Bearer ${family.key}`, 'content-type': 'application/json', 'idempotency-key': key },
            body
        });

        const responses = await Promise.all([send(), send(), send(), send()]);
        const answers = await Promise.all(responses.map(async (response) => ({ status: response.status, replayed: response.headers.get('idempotent-replayed'), body: JSON.parse(await response.text()) })));

        expect(answers.map((answer) => answer.status), JSON.stringify(answers)).to.equal([201, 201, 201, 201]);
        expect(new Set(answers.map((answer) => answer.body.data.id)).size).to.equal(1);
        expect(answers.filter((answer) => answer.replayed === null)).to.have.length(1);
        expect(await recordsOf(family, 'persons')).to.have.length(1);
        expect(await createdEvents(family)).to.equal(1);
    });

    it('documents the header, the replay header and the 422 on every create', async () => {

        const document = bodyOf(await server.inject('/api/v1/openapi.json'));
        const creates = Object.entries(document.paths as Record<string, any>).filter(([path, operations]) => path !== '/all' && operations.post);
        expect(creates.length).to.equal(8);
        for (const [path, { post }] of creates) {
            expect(post.parameters.filter((parameter: any) => parameter.in === 'header').map((parameter: any) => parameter.name), path).to.equal(['Idempotency-Key']);
            expect(Object.keys(post.responses['201'].headers)).to.include(['Location', 'ETag', 'Idempotent-Replayed']);
            expect(post.responses['422'].content['application/json'].schema.allOf[1].properties.code.enum).to.equal(['idempotency_key_reused']);
        }
    });
});
