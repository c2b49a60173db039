import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { recordId } from '../../lib/ids';
import type { ResourceModel } from '../../models/resource-record';
import { persons } from '../../models/resources/persons';
import { createFamily } from '../../lib/accounts/families';
import { testServer, testVariant } from '../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`resource models keep search_text on ${testVariant}`, () => {

    let server: Server;
    let Persons: ResourceModel;
    let familyLongId: string;

    before(async () => {

        server = await testServer();
        Persons = server.app.services.models.records.persons;
        familyLongId = (await createFamily(server.app.services.accounts, { name: 'Model family', plan: 'family' })).family_long_id;
    });

    after(() => server.stop());

    const person = (values: Record<string, unknown>) => ({ id: recordId(persons.idPrefix), family_long_id: familyLongId, first_name: 'First', last_name: 'Last', ...values });
    /** The column as stored, read afresh. */
    const storedText = async (id: string) => (await Persons.findByPk(id))!.getDataValue('search_text');

    it('writes it on create, with the searchable fields in declaration order', async () => {

        const { id } = await Persons.create(person({ first_name: 'Émile', last_name: 'Zola', gender: 'male', notes: 'Écrivain' }));
        expect(await storedText(id)).to.equal('emile\nzola\n\n\n\necrivain');
    });

    it('writes it over any value a writer gives', async () => {

        const { id } = await Persons.create(person({ search_text: 'forged' }));
        expect(await storedText(id)).to.equal('first\nlast\n\n\n\n');
    });

    it('writes it on save when a searchable field changed, even when the save names its fields', async () => {

        const record = await Persons.create(person({}));
        record.set({ last_name: 'Østergaard' });
        await record.save({ fields: ['last_name'] });
        expect(await storedText(record.id)).to.equal('first\nostergaard\n\n\n\n');

        await record.update({ birth_place: 'Århus', gender: 'female' });
        expect(await storedText(record.id)).to.equal('first\nostergaard\n\narhus\n\n');
    });

    it('writes it in bulkCreate, even when the call names its fields', async () => {

        const rows = [person({ last_name: 'Ødegård' }), person({ last_name: 'Łukasz' })];
        await Persons.bulkCreate(rows, { fields: ['id', 'family_long_id', 'first_name', 'last_name'] });
        expect(await storedText(rows[0].id)).to.equal('first\nodegard\n\n\n\n');
        expect(await storedText(rows[1].id)).to.equal('first\nlukasz\n\n\n\n');
    });

    it('writes it in the static update() of a searchable field, row by row', async () => {

        const [one, two] = await Persons.bulkCreate([person({ first_name: 'Anna' }), person({ first_name: 'Björn' })]);
        const [changed] = await Persons.update({ last_name: 'Müller' }, { where: { id: [one.id, two.id] } });
        expect(changed).to.equal(2);
        expect(await storedText(one.id)).to.equal('anna\nmuller\n\n\n\n');
        expect(await storedText(two.id)).to.equal('bjorn\nmuller\n\n\n\n');

        // Another field: the text stays.
        await Persons.update({ gender: 'female' }, { where: { id: one.id } });
        expect(await storedText(one.id)).to.equal('anna\nmuller\n\n\n\n');
    });

    it('folds the searchable fields a changed record was read without as they are stored', async () => {

        const { id } = await Persons.create(person({ birth_place: 'Genève', notes: 'Kept' }));
        const partial = (await Persons.findByPk(id, { attributes: ['id', 'first_name', 'revision'] }))!;
        await partial.update({ first_name: 'Zoë' });
        expect(await storedText(id)).to.equal('zoe\nlast\n\ngeneve\n\nkept');
    });

    it('refuses upserts, whose values may hold only some searchable fields', async () => {

        await expect(Persons.upsert(person({}))).to.reject(/An upsert cannot keep a person's search text/);
        await expect(Persons.bulkCreate([person({})], { updateOnDuplicate: ['last_name'] })).to.reject(/An upsert cannot keep a person's search text/);
    });
});
