import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { testServerWithFamily, type FamilyFixture } from '../../helpers/server';
import { dataOf, expectError } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('records API v1: persons\' family links (person-links.ts)', () => {

    let server: Server;
    let family: FamilyFixture;

    const person = async (body: Record<string, unknown> = {}) => dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Someone', last_name: 'Berg', ...body }), 201).id as string;
    const patch = (id: string, body: Record<string, unknown>) => family.inject('PATCH', `/api/v1/persons/${id}`, body);
    const revisionOf = async (id: string) => dataOf(await family.inject('GET', `/api/v1/persons/${id}`)).revision;

    before(async () => {

        ({ server, family } = await testServerWithFamily());
    });

    after(() => server.stop());

    it('refuses one person as both parents, on create and on update', async () => {

        const mother = await person();
        const father = await person();
        expectError(await family.inject('POST', '/api/v1/persons', { first_name: 'A', last_name: 'B', parent_1_id: mother, parent_2_id: mother }), 400, 'invalid_request', 'parent_2_id');

        const child = await person({ parent_1_id: mother, parent_2_id: father });
        expectError(await patch(child, { parent_2_id: mother }), 400, 'invalid_request', 'parent_2_id');
        expectError(await patch(child, { parent_1_id: father }), 400, 'invalid_request', 'parent_1_id');
        expect(await revisionOf(child)).to.equal(1);

        // Swapping the parents in one body is fine.
        expect(dataOf(await patch(child, { parent_1_id: father, parent_2_id: mother }))).to.include({ parent_1_id: father, parent_2_id: mother, revision: 2 });
    });

    it('refuses a parent who would also be the spouse, whichever field is set', async () => {

        const partner = await person();
        expectError(await family.inject('POST', '/api/v1/persons', { first_name: 'A', last_name: 'B', parent_1_id: partner, spouse_id: partner }), 400, 'invalid_request', 'spouse_id');

        const child = await person({ parent_2_id: partner });
        expectError(await patch(child, { spouse_id: partner }), 400, 'invalid_request', 'spouse_id');

        const married = await person({ spouse_id: partner });
        expectError(await patch(married, { parent_1_id: partner }), 400, 'invalid_request', 'parent_1_id');
        expect([await revisionOf(child), await revisionOf(married)]).to.equal([1, 1]);
    });

    it('refuses a child as the spouse of their parent, from either side', async () => {

        const parent = await person();
        const child = await person({ parent_1_id: parent });
        expectError(await patch(parent, { spouse_id: child }), 400, 'invalid_request', 'spouse_id');

        const spouse = await person();
        await patch(spouse, { spouse_id: parent });
        expectError(await patch(parent, { parent_2_id: spouse }), 400, 'invalid_request', 'parent_2_id');
        expect([await revisionOf(parent), await revisionOf(spouse)]).to.equal([1, 2]);
    });

    it('refuses a link that would make a person their own ancestor, over any number of generations', async () => {

        const grandparent = await person();
        const parent = await person({ parent_1_id: grandparent });
        const child = await person({ parent_2_id: parent });
        const grandchild = await person({ parent_1_id: child });

        expectError(await patch(grandparent, { parent_1_id: parent }), 400, 'invalid_request', 'parent_1_id');
        expectError(await patch(grandparent, { parent_2_id: grandchild }), 400, 'invalid_request', 'parent_2_id');
        expectError(await patch(parent, { parent_2_id: child }), 400, 'invalid_request', 'parent_2_id');
        expect(await revisionOf(grandparent)).to.equal(1);

        // Relatives who are not descendants stay possible parents, and a PATCH of other fields is not checked.
        const stranger = await person({ parent_1_id: grandparent });
        expect(dataOf(await patch(child, { parent_1_id: stranger })).parent_1_id).to.equal(stranger);
        expect(dataOf(await patch(grandchild, { notes: 'unrelated' })).revision).to.equal(2);
    });

    it('lets only one of two simultaneous updates that together would close a loop succeed', async () => {

        const first = await person();
        const second = await person();
        const answers = await Promise.all([patch(first, { parent_1_id: second }), patch(second, { parent_1_id: first })]);

        expect(answers.map((answer) => answer.statusCode).sort()).to.equal([200, 400]);
        expect([await revisionOf(first), await revisionOf(second)].sort()).to.equal([1, 2]);
    });

    it('ends its walk over links that already loop (stored before these rules)', async () => {

        const first = await person();
        const second = await person({ parent_1_id: first });
        await server.app.services.models.records.persons.update({ parent_1_id: second }, { where: { id: first } });
        const outsider = await person();

        expect(dataOf(await patch(outsider, { parent_1_id: first })).parent_1_id).to.equal(first);
        const child = await person({ parent_1_id: first });
        expectError(await patch(second, { parent_2_id: child }), 400, 'invalid_request', `parent_2_id: person ${child} descends from this person`);
    });
});
