import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { resources, type ResourceName } from '../../../models/resources';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { bodyOf, createBody, creatableResources, dataOf, expectError, idPattern, insertRecord, isoTimestamp, nextMillisecond, storedValues, uploadedResources, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('records API v1: create, read, update, delete', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    /** PATCH, then checks the answer and that a later read agrees; returns the updated record. */
    async function expectUpdated(family: FamilyFixture, name: ResourceName, before: Body, changes: Body): Promise<Body> {

        await nextMillisecond();
        const updated = dataOf(await family.inject('PATCH', `/api/v1/${name}/${before.id}`, changes));
        expect(updated).to.equal({ ...before, ...changes, revision: 2, updated_at: updated.updated_at });
        expect(updated.updated_at).to.match(isoTimestamp);
        expect(Date.parse(updated.updated_at)).to.be.above(Date.parse(before.updated_at as string));
        expect(dataOf(await family.inject('GET', `/api/v1/${name}/${before.id}`))).to.equal(updated);
        return updated;
    }

    /** DELETE answers `{ id, deleted: true }`; afterwards the id is unknown to every route. */
    async function expectDeleted(family: FamilyFixture, name: ResourceName, id: string): Promise<void> {

        const deleted = await family.inject('DELETE', `/api/v1/${name}/${id}`);
        expect(deleted.statusCode).to.equal(200);
        expect(bodyOf(deleted)).to.equal({ data: { id, deleted: true } });

        expectError(await family.inject('GET', `/api/v1/${name}/${id}`), 404, 'not_found', id);
        expectError(await family.inject('PATCH', `/api/v1/${name}/${id}`, createBody(name, { requiredOnly: true })), 404, 'not_found', id);
        expectError(await family.inject('DELETE', `/api/v1/${name}/${id}`), 404, 'not_found', id);
        expect(dataOf(await family.inject('GET', `/api/v1/${name}`))).to.equal([]);
    }

    for (const name of creatableResources) {
        const resource = resources[name];

        describe(`/api/v1/${name}`, () => {

            it(`creates, reads, updates and deletes a ${resource.singular}`, async () => {

                const family = await familyWithKey(server);
                const body = createBody(name);
                const response = await family.inject('POST', `/api/v1/${name}`, body);

                const created = dataOf(response, 201);
                expect(created.id).to.match(idPattern(resource));
                expect(response.headers.location).to.equal(`${server.app.services.config.publicBaseUrl}/api/v1/${name}/${created.id}`);
                expect(created).to.equal({ ...nullFields(name), ...body, id: created.id, revision: 1, created_at: created.created_at, updated_at: created.created_at });
                expect(created.created_at).to.match(isoTimestamp);

                expect(dataOf(await family.inject('GET', `/api/v1/${name}/${created.id}`))).to.equal(created);
                expect(dataOf(await family.inject('GET', `/api/v1/${name}`))).to.equal([created]);

                const updated = await expectUpdated(family, name, created, createBody(name, { variant: 1 }));
                expect(updated.created_at).to.equal(created.created_at);
                await expectDeleted(family, name, created.id);
            });

            it(`gives the optional fields of a new ${resource.singular} their default or null`, async () => {

                const family = await familyWithKey(server);
                const body = createBody(name, { requiredOnly: true });
                const created = dataOf(await family.inject('POST', `/api/v1/${name}`, body), 201);

                const defaults = Object.fromEntries(Object.entries(resource.fields).filter(([, field]) => field.default !== undefined)
                    .map(([field, declared]) => [field, declared.default]));
                expect(created).to.equal({ ...nullFields(name), ...defaults, ...body, id: created.id, revision: 1,
                    created_at: created.created_at, updated_at: created.updated_at });
            });

            it(`updates one field of a ${resource.singular} and keeps the others`, async () => {

                const family = await familyWithKey(server);
                const created = dataOf(await family.inject('POST', `/api/v1/${name}`, createBody(name)), 201);
                const [field, value] = Object.entries(createBody(name, { variant: 2 }))[0];
                await expectUpdated(family, name, created, { [field]: value });
            });
        });
    }

    for (const name of uploadedResources) {
        const resource = resources[name];

        describe(`/api/v1/${name}`, () => {

            it('creates no record from a JSON body without a file: its records arrive with file uploads', async () => {

                const family = await familyWithKey(server);
                const response = await family.inject('POST', `/api/v1/${name}`, createBody(name));
                expectError(response, 400, 'invalid_request', 'file_base64');
                expect(dataOf(await family.inject('GET', `/api/v1/${name}`))).to.equal([]);
            });

            it(`reads, updates and deletes a ${resource.singular}`, async () => {

                const family = await familyWithKey(server);
                const values = storedValues(name);
                const id = await insertRecord(server, family.familyLongId, name, values);
                expect(id).to.match(idPattern(resource));

                // include, not equal: records carrying a file may also show links to it.
                const read = dataOf(await family.inject('GET', `/api/v1/${name}/${id}`));
                expect(read).to.include({ ...nullFields(name), ...values, id, revision: 1, updated_at: read.created_at });
                expect(read.created_at).to.match(isoTimestamp);
                expect(dataOf(await family.inject('GET', `/api/v1/${name}`))).to.equal([read]);

                await expectUpdated(family, name, read, createBody(name, { variant: 1 }));
                await expectDeleted(family, name, id);
            });

            it(`refuses changes to the read-only file fields of a ${resource.singular}`, async () => {

                const family = await familyWithKey(server);
                const id = await insertRecord(server, family.familyLongId, name);
                for (const field of ['original_name', 'media_type', 'size_bytes']) {
                    expectError(await family.inject('PATCH', `/api/v1/${name}/${id}`, { [field]: storedValues(name, 1)[field] }), 400, 'invalid_request', field);
                }

                expect(dataOf(await family.inject('GET', `/api/v1/${name}/${id}`)).revision).to.equal(1);
            });
        });
    }

    it('answers 404 not_found for an id that never existed', async () => {

        const family = await familyWithKey(server);
        for (const name of creatableResources.concat(uploadedResources)) {
            const unknown = `${resources[name].idPrefix}_AAAAAAAAAAAAAAAAAAAA`;
            expectError(await family.inject('GET', `/api/v1/${name}/${unknown}`), 404, 'not_found', unknown);
            expectError(await family.inject('PATCH', `/api/v1/${name}/${unknown}`, createBody(name, { requiredOnly: true })), 404, 'not_found', unknown);
            expectError(await family.inject('DELETE', `/api/v1/${name}/${unknown}`), 404, 'not_found', unknown);
        }
    });

    it('answers 404 not_found, as for an unknown id, for what is not an id of the resource', async () => {

        const family = await familyWithKey(server);
        const treeId = await insertRecord(server, family.familyLongId, 'trees');
        for (const id of [treeId, `per_${treeId.slice(4)}A`, `per_${'A'.repeat(61)}`, 'per_AAAAAAAAAAAAAAAAAAA%20', 'x']) {
            expectError(await family.inject('GET', `/api/v1/persons/${id}`), 404, 'not_found', 'No person');
            expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, createBody('persons', { requiredOnly: true })), 404, 'not_found', 'No person');
            expectError(await family.inject('DELETE', `/api/v1/persons/${id}`), 404, 'not_found', 'No person');
        }

        expect(dataOf(await family.inject('GET', `/api/v1/trees/${treeId}`)).revision).to.equal(1);
    });
});

/** Every declared field of the resource, null: what a record shows for fields never set. */
function nullFields(name: ResourceName): Body {

    return Object.fromEntries(Object.keys(resources[name].fields).map((field) => [field, null]));
}
