import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { recordId } from '../../../lib/ids';
import { persons } from '../../../models/resources/persons';
import { familyWithKey, testServer, testVariant, type FamilyFixture } from '../../helpers/server';
import { bodyOf, dataOf, insertRecord, storedValues, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`search= ignoring case and accents on ${testVariant}`, () => {

    let server: Server;
    let family: FamilyFixture;
    const people: Record<string, string> = {};

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        const entries: [string, Body][] = [
            ['emile', { first_name: 'Émile', last_name: 'Zola', birth_place: 'Paris' }],
            ['ostergaard', { first_name: 'Karen', last_name: 'Østergaard' }],
            ['alexandros', { first_name: 'Ἀλέξανδρος', last_name: 'Μακεδών' }],
            ['odysseus', { first_name: 'Ὀδυσσεύς', last_name: 'Λαερτιάδης' }],
            ['ivan', { first_name: 'Иван', last_name: 'Петров' }],
            ['muller', { first_name: 'Anna', last_name: 'Müller', birth_place: 'Köln' }],
            ['strauss', { first_name: 'Johann', last_name: 'Strauß' }],
            ['curie', { first_name: 'Marie', last_name: 'Curie' }]
        ];
        for (const [label, values] of entries) {
            people[label] = dataOf(await family.inject('POST', '/api/v1/persons', values), 201).id;
        }
    });

    after(() => server.stop());

    const idsOf = (rows: Body[]) => rows.map((row) => row.id as string).sort();
    const found = async (search: string, by = family) => idsOf(dataOf(await by.inject('GET', `/api/v1/persons?search=${encodeURIComponent(search)}&limit=100`)));
    const expected = (...labels: string[]) => labels.map((label) => people[label]).sort();

    it('finds accented and non-Latin names whatever the case and accents of the words', async () => {

        // É precomposed, and E followed by a combining acute: the same letter.
        for (const word of ['Émile', 'émile', 'ÉMILE', 'emile', 'EMILE', 'E\u0301mile', 'mil']) {
            expect(await found(word), word).to.equal(expected('emile'));
        }

        for (const word of ['Østergaard', 'ØSTERGAARD', 'østergaard', 'ostergaard', 'OSTERGAARD']) {
            expect(await found(word), word).to.equal(expected('ostergaard'));
        }

        for (const word of ['Ἀλέξανδρος', 'ἀλέξανδρος', 'ΑΛΈΞΑΝΔΡΟΣ', 'αλεξανδρος', 'ΑΛΕΞ', 'ΜΑΚΕΔΏΝ', 'μακεδων']) {
            expect(await found(word), word).to.equal(expected('alexandros'));
        }

        // A capital sigma ending a word cut short lower-cases to a final ς: it still finds the σ inside the name.
        for (const word of ['ΟΔΥΣ', 'Οδυς', 'ὀδυσσεύς', 'ΟΔΥΣΣΕΥΣ']) {
            expect(await found(word), word).to.equal(expected('odysseus'));
        }

        for (const word of ['Иван', 'ИВАН', 'иван', 'ПЕТРОВ']) {
            expect(await found(word), word).to.equal(expected('ivan'));
        }

        for (const word of ['Müller', 'MÜLLER', 'muller']) {
            expect(await found(word), word).to.equal(expected('muller'));
        }

        // ß is SS in capitals.
        for (const word of ['Strauß', 'STRAUSS', 'strauss', 'STRAUẞ']) {
            expect(await found(word), word).to.equal(expected('strauss'));
        }
    });

    it('needs every word, each in any field, and never matches a word across two fields', async () => {

        expect(await found('muller KOLN')).to.equal(expected('muller'));
        expect(await found('köln anna')).to.equal(expected('muller'));
        expect(await found('ÉMILE paris zola')).to.equal(expected('emile'));
        expect(await found('emile koln')).to.equal([]);
        // The two fields end to end, with no separator, and with a space, which U+00B4 (an acute accent on
        // its own) decomposes to: neither word is in one field.
        expect(await found('mariecurie')).to.equal([]);
        expect(await found('marie\u00b4curie')).to.equal([]);
        expect(await found('marie curie')).to.equal(expected('curie'));
    });

    it('asks nothing of a word that is only combining marks', async () => {

        expect(await found('\u0301 emile')).to.equal(expected('emile'));
    });

    it('searches a changed name, and no longer the one it replaced', async () => {

        const own = await familyWithKey(server);
        const id = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Émile', last_name: 'Durand', gender: 'male' }), 201).id;

        dataOf(await own.inject('PATCH', `/api/v1/persons/${id}`, { first_name: 'Étienne' }));
        expect(await found('etienne durand', own)).to.equal([id]);
        expect(await found('emile', own)).to.equal([]);

        // A change to no searchable field keeps the search text.
        dataOf(await own.inject('PATCH', `/api/v1/persons/${id}`, { gender: 'unknown' }));
        expect(await found('ÉTIENNE', own)).to.equal([id]);

        // Deleting a parent clears the child's link: an update of the child by the server, not of its names.
        const parent = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Parent', last_name: 'Durand' }), 201).id;
        dataOf(await own.inject('PATCH', `/api/v1/persons/${id}`, { parent_1_id: parent }));
        dataOf(await own.inject('DELETE', `/api/v1/persons/${parent}`));
        expect(await found('durand', own)).to.equal([id]);
    });

    it('finds records written in bulk, as imports and the benchmarks write them', async () => {

        const own = await familyWithKey(server);
        const now = new Date();
        const rows = ['Ødegård', 'Łukasz'].map((last_name) => ({ id: recordId(persons.idPrefix), family_long_id: own.familyLongId, revision: 1, created_at: now, updated_at: now, first_name: 'Bulk', last_name }));
        await server.app.services.models.records.persons.bulkCreate(rows);

        expect(await found('odegard', own)).to.equal([rows[0].id]);
        expect(await found('LUKASZ bulk', own)).to.equal([rows[1].id]);
    });

    it('applies to /api/v1/all and to exports alike', async () => {

        const own = await familyWithKey(server);
        const person = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Émile', last_name: 'Østergaard' }), 201).id;
        const tree = dataOf(await own.inject('POST', '/api/v1/trees', { name: 'Østergaard family', description: 'Émile\'s line' }), 201).id;
        const event = dataOf(await own.inject('POST', '/api/v1/events', { title: 'Wedding', description: 'Emile and Ostergaard, Ærøskøbing' }), 201).id;
        const document = await insertRecord(server, own.familyLongId, 'documents', { ...storedValues('documents'), title: 'ÉMILE ØSTERGAARD, LETTER' });
        await own.inject('POST', '/api/v1/persons', { first_name: 'Emil', last_name: 'Ostergard' });

        const all = dataOf(await own.inject('GET', '/api/v1/all?search=emile%20%C3%98STERGAARD'));
        expect(Object.fromEntries(Object.entries(all).filter(([, rows]) => (rows as Body[]).length > 0).map(([name, rows]) => [name, idsOf(rows as Body[])])))
            .to.equal({ persons: [person], trees: [tree], events: [event], documents: [document] });

        const csv = (await own.inject('GET', '/api/v1/persons?format=csv&search=OSTERGAARD%20%C3%A9mile')).payload;
        expect(csv).to.contain(person);
        expect(csv.trim().split('\r\n')).to.have.length(2);

        const gedcom = (await own.inject('GET', '/api/v1/persons?format=gedcom&search=%C3%A9MILE')).payload;
        expect(gedcom).to.contain('Émile');
        expect(gedcom).to.not.contain('Emil ');
    });

    it('never shows the search text: not in JSON, lists, all, CSV or HTML', async () => {

        const own = await familyWithKey(server);
        const created = await own.inject('POST', '/api/v1/persons', { first_name: 'Émile', last_name: 'Hidden' });
        const { id } = dataOf(created, 201);
        const gallery = await insertRecord(server, own.familyLongId, 'gallery', { ...storedValues('gallery'), title: 'Émile at sea' });

        const responses = [
            created,
            await own.inject('GET', `/api/v1/persons/${id}`),
            await own.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'Folded' }),
            await own.inject('GET', '/api/v1/persons?search=emile'),
            await own.inject('GET', `/api/v1/gallery/${gallery}`),
            await own.inject('GET', '/api/v1/gallery?search=emile'),
            await own.inject('GET', '/api/v1/all?search=emile'),
            await own.inject('GET', '/api/v1/persons?format=csv'),
            await own.inject('GET', '/api/v1/all?format=csv'),
            await own.inject('GET', '/api/v1/persons?format=html'),
            await own.inject('GET', '/api/v1/persons?format=gedcom')
        ];
        for (const response of responses) {
            expect(response.statusCode, response.request.url.href).to.be.within(200, 201);
            expect(response.payload, response.request.url.href).to.not.contain('search_text');
            expect(response.payload, response.request.url.href).to.not.contain('emile');         // the folded text
        }

        expect(bodyOf(await own.inject('GET', '/api/v1/persons?sort=search_text')).code).to.equal('invalid_request');
        expect(bodyOf(await own.inject('GET', '/api/v1/persons?filter[search_text]=emile')).code).to.equal('invalid_request');
        expect(bodyOf(await own.inject('PATCH', `/api/v1/persons/${id}`, { search_text: 'forged' })).code).to.equal('invalid_request');
        expect(bodyOf(await own.inject('POST', '/api/v1/persons', { first_name: 'A', last_name: 'B', search_text: 'forged' })).code).to.equal('invalid_request');
    });
});
