import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { fieldNamesWhere, resourceNames, resources, type ResourceName } from '../../../models/resources';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { bodyOf, createBody, dataOf, expectError, insertRecord, storedValues, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const mark = 'Isolationmark';

describe('records API v1: tenant isolation', () => {

    let server: Server;
    let familyA: FamilyFixture;
    let familyB: FamilyFixture;
    /** Family A's record of each resource, as A reads it; its references point at A's own records. */
    const recordsOfA = {} as Record<ResourceName, Body>;
    /** Family B's own record of each resource. */
    const idsOfB = {} as Record<ResourceName, string>;

    before(async () => {

        server = await testServer();
        familyA = await familyWithKey(server);
        familyB = await familyWithKey(server);

        const treeOfA = await insertRecord(server, familyA.familyLongId, 'trees', { name: 'Tree of A' });
        // One person per link: a person's parents and spouse are different persons (person-links.ts).
        const personsOfA: string[] = [];
        for (const first_name of ['Parent', 'Other parent', 'Spouse']) {
            personsOfA.push(await insertRecord(server, familyA.familyLongId, 'persons', { first_name, last_name: 'of A' }));
        }

        for (const name of resourceNames) {
            const searchable = fieldNamesWhere(resources[name], (field) => field.searchable && field.required)[0];
            const references = Object.fromEntries(Object.entries(resources[name].fields)
                .filter(([, field]) => field.type === 'reference')
                .map(([field, declared], index) => [field, declared.references === 'trees' ? treeOfA : personsOfA[index % personsOfA.length]]));

            const id = await insertRecord(server, familyA.familyLongId, name, { ...storedValues(name), ...references, [searchable]: `${mark} ${name}` });
            recordsOfA[name] = dataOf(await familyA.inject('GET', `/api/v1/${name}/${id}`));
            idsOfB[name] = await insertRecord(server, familyB.familyLongId, name, storedValues(name, 1));
        }
    });

    after(() => server.stop());

    const listedIds = async (family: FamilyFixture, url: string) => (dataOf(await family.inject('GET', url)) as Body[]).map((row) => row.id);

    /** The answer to an unknown id of the resource, with the id in the message swapped for `id`. */
    async function unknownIdAnswer(method: string, name: ResourceName, id: string): Promise<Body> {

        const unknown = `${resources[name].idPrefix}_AAAAAAAAAAAAAAAAAAAA`;
        const response = await familyB.inject(method, `/api/v1/${name}/${unknown}`, method === 'PATCH' ? createBody(name, { requiredOnly: true }) : undefined);
        const payload = bodyOf(response);
        return { ...payload, message: payload.message.replace(unknown, id) };
    }

    const expectSameAsUnknown = async (response: ServerInjectResponse, method: string, name: ResourceName, id: string) => {

        expectError(response, 404, 'not_found');
        expect(bodyOf(response)).to.equal(await unknownIdAnswer(method, name, id));
    };

    for (const name of resourceNames) {
        const resource = resources[name];

        describe(`/api/v1/${name}`, () => {

            it(`keeps family A's ${name} out of family B's list, search and filters`, async () => {

                const ofA = recordsOfA[name];
                expect(await listedIds(familyA, `/api/v1/${name}?search=${mark}`)).to.equal([ofA.id]);

                expect(await listedIds(familyB, `/api/v1/${name}`)).to.equal([idsOfB[name]]);
                expect(await listedIds(familyB, `/api/v1/${name}?search=${mark}`)).to.equal([]);
                for (const field of fieldNamesWhere(resource, (declared) => declared.filterable)) {
                    const url = `/api/v1/${name}?filter[${field}]=${encodeURIComponent(String(ofA[field]))}`;
                    expect(await listedIds(familyA, url), url).to.include(ofA.id);
                    expect(await listedIds(familyB, url), url).to.not.include(ofA.id);
                }

                for (const field of fieldNamesWhere(resource, (declared) => declared.sortable)) {
                    expect(await listedIds(familyB, `/api/v1/${name}?sort=${field}&direction=desc`)).to.equal([idsOfB[name]]);
                }
            });

            it(`answers family B 404 for family A's ${resource.singular}, as for an unknown id, and leaves it unchanged`, async () => {

                const ofA = recordsOfA[name];
                const changes = createBody(name, { variant: 2 });
                await expectSameAsUnknown(await familyB.inject('GET', `/api/v1/${name}/${ofA.id}`), 'GET', name, ofA.id as string);
                await expectSameAsUnknown(await familyB.inject('PATCH', `/api/v1/${name}/${ofA.id}`, changes), 'PATCH', name, ofA.id as string);
                await expectSameAsUnknown(await familyB.inject('DELETE', `/api/v1/${name}/${ofA.id}`), 'DELETE', name, ofA.id as string);

                expect(dataOf(await familyA.inject('GET', `/api/v1/${name}/${ofA.id}`))).to.equal(ofA);
                const events = await server.app.services.models.ChangeEvent.findAll({ where: { record_id: ofA.id as string } });
                expect(events.map((event) => event.action)).to.equal(['created']);
            });
        });
    }

    it('keeps family A\'s records out of family B\'s /api/v1/all, with and without search', async () => {

        const everyIdOf = (data: Record<string, Body[]>) => Object.values(data).flat().map((row) => row.id);
        const idsOfA = Object.values(recordsOfA).map((record) => record.id);

        const all = dataOf(await familyB.inject('GET', '/api/v1/all'));
        expect(everyIdOf(all).sort()).to.equal(Object.values(idsOfB).sort());
        expect(everyIdOf(dataOf(await familyB.inject('GET', `/api/v1/all?search=${mark}`)))).to.equal([]);
        expect(everyIdOf(dataOf(await familyA.inject('GET', `/api/v1/all?search=${mark}`))).sort()).to.equal(idsOfA.sort());
    });

    it('keeps family B from pointing its records at family A\'s', async () => {

        const treeOfA = recordsOfA.persons.tree_id as string;
        expectError(await familyB.inject('POST', '/api/v1/persons', { ...createBody('persons'), tree_id: treeOfA }), 400, 'invalid_request', 'tree_id');
        expectError(await familyB.inject('PATCH', `/api/v1/persons/${idsOfB.persons}`, { tree_id: treeOfA }), 400, 'invalid_request', 'tree_id');
        expectError(await familyB.inject('PATCH', `/api/v1/gallery/${idsOfB.gallery}`, { person_id: recordsOfA.persons.id }), 400, 'invalid_request', 'person_id');
    });
});
