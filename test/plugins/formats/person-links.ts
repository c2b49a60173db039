import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { familyWithKey, testServerWithFamily, type FamilyFixture } from '../../helpers/server';
import { dataOf, expectError } from '../records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('persons: parent and spouse links', () => {

    let server: Server;
    let family: FamilyFixture;

    const person = async (body: Record<string, unknown>) => dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Someone', last_name: 'Berg', ...body }), 201);

    before(async () => {

        ({ server, family } = await testServerWithFamily());
    });

    after(() => server.stop());

    it('links a person to two parents and a spouse', async () => {

        const mother = await person({ first_name: 'Eva' });
        const father = await person({ first_name: 'Olof', spouse_id: mother.id });
        const child = await person({ first_name: 'Lisa', parent_1_id: mother.id, parent_2_id: father.id });
        expect(child).to.include({ parent_1_id: mother.id, parent_2_id: father.id, spouse_id: null });
        expect(father.spouse_id).to.equal(mother.id);

        const children = dataOf(await family.inject('GET', `/api/v1/persons?filter[parent_1_id]=${mother.id}`));
        expect(children.map((record: { id: string }) => record.id)).to.equal([child.id]);
    });

    it('refuses a person as their own parent or spouse', async () => {

        const subject = await person({});
        for (const field of ['parent_1_id', 'parent_2_id', 'spouse_id']) {
            expectError(await family.inject('PATCH', `/api/v1/persons/${subject.id}`, { [field]: subject.id }), 400, 'invalid_request', `${field}: a person cannot refer to itself`);
        }

        expect(dataOf(await family.inject('GET', `/api/v1/persons/${subject.id}`)).revision).to.equal(1);
    });

    it('refuses links to unknown persons and to another family\'s', async () => {

        const other = await familyWithKey(server);
        const stranger = dataOf(await other.inject('POST', '/api/v1/persons', { first_name: 'Stranger', last_name: 'Elsewhere' }), 201);
        expectError(await family.inject('POST', '/api/v1/persons', { first_name: 'A', last_name: 'B', parent_1_id: stranger.id }), 400, 'invalid_request', 'parent_1_id');
        expectError(await family.inject('POST', '/api/v1/persons', { first_name: 'A', last_name: 'B', spouse_id: 'per_AAAAAAAAAAAAAAAAAAAA' }), 400, 'invalid_request', 'spouse_id');
        expectError(await family.inject('POST', '/api/v1/persons', { first_name: 'A', last_name: 'B', parent_2_id: 'tre_AAAAAAAAAAAAAAAAAAAA' }), 400, 'invalid_request', 'parent_2_id');
    });

    it('clears the links to a deleted person, as an update of each linked person', async () => {

        const parent = await person({ first_name: 'Gone' });
        const child = await person({ parent_2_id: parent.id });
        const spouse = await person({ spouse_id: parent.id });

        dataOf(await family.inject('DELETE', `/api/v1/persons/${parent.id}`));
        expect(dataOf(await family.inject('GET', `/api/v1/persons/${child.id}`))).to.include({ parent_2_id: null, revision: 2 });
        expect(dataOf(await family.inject('GET', `/api/v1/persons/${spouse.id}`))).to.include({ spouse_id: null, revision: 2 });
    });
});
