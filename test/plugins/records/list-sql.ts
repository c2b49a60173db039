import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { resourceNames, resources } from '../../../models/resources';
import { persons } from '../../../models/resources/persons';
import { encodeCursor } from '../../../plugins/records/cursor';
import { listReader } from '../../../plugins/records/list-readers';
import { listStatement, recordLinesStatement, type ListOptions } from '../../../plugins/records/list-sql';
import { listedRecords } from '../../../plugins/records/listed-records';
import { familyWithKey, testServer, testVariant, type FamilyFixture } from '../../helpers/server';
import { bodyOf, dataOf, expectError, insertRecord, nextMillisecond, storedValues, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** Text a careless SQL builder would break on: quotes, a backslash, LIKE wildcards and a statement of its own. */
const omitSigned = ({ url: _url, url_expires_at: _expires, ...record }: Body) => record;

const hostile = `O'Brien "Bob" \\ 100% _x_ '); DELETE FROM persons; --`;

describe('listStatement()', () => {

    const options: ListOptions = {
        familyLongId: 'fam_marker_family',
        search: 'markersearchone markersearchtwo',
        sort: 'last_name',
        direction: 'desc',
        filters: { gender: 'marker_filter', birth_place: hostile },
        after: { sort: 'last_name', direction: 'desc', value: 'marker_cursor_value', id: 'marker_cursor_id' }
    };

    for (const [dialect, statement] of ['sqlite', 'postgres'].flatMap((name) => [[name, listStatement], [name, recordLinesStatement]] as const)) {
        it(`binds every value of ${statement.name}() on ${dialect}, scoping to the family first: none is written into the SQL`, () => {

            const { sql, bind } = statement(persons, options, dialect, 26);
            expect(sql).to.not.contain('marker');
            expect(sql).to.not.contain('Brien');
            expect(sql).to.contain('WHERE "family_long_id" = $1 AND');
            expect(bind[0]).to.equal('fam_marker_family');
            expect(bind).to.include(['marker_filter', hostile, 'marker_cursor_value', 'marker_cursor_id', 26]);
            // One parameter per search word, whatever the number of searchable fields it is matched against.
            expect(bind.filter((value) => String(value).includes('markersearch'))).to.have.length(2);
            expect(sql.match(/\$\d+/g)!.map((placeholder) => Number(placeholder.slice(1))).sort((a, b) => a - b).at(-1)).to.equal(bind.length);
        });
    }

    it('refuses a sort or filter column the resource does not declare', () => {

        expect(() => listStatement(persons, { ...options, sort: 'family_long_id', after: undefined }, 'sqlite', 10)).to.throw('family_long_id is not a column of persons');
        expect(() => listStatement(persons, { ...options, filters: { 'gender" = gender OR "1': 'x' } }, 'postgres', 10)).to.throw(/is not a column of persons/);
    });
});

describe(`list reading on ${testVariant}`, () => {

    let server: Server;
    let family: FamilyFixture;
    let other: FamilyFixture;
    const ids: Record<string, string> = {};

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        other = await familyWithKey(server);
        const people: [string, Body][] = [
            ['hostile', { first_name: 'Hostile', last_name: hostile, birth_place: hostile }],
            ['quote', { first_name: 'Quote', last_name: `O'Brien`, birth_place: 'Cork' }],
            ['plain', { first_name: 'Plain', last_name: 'Smith', birth_place: 'Cork' }]
        ];
        for (const [label, values] of people) {
            ids[label] = dataOf(await family.inject('POST', '/api/v1/persons', values), 201).id;
            await nextMillisecond();
        }

        // Same names in the other family: a list must never show them.
        for (const [, values] of people) {
            dataOf(await other.inject('POST', '/api/v1/persons', values), 201);
        }
    });

    after(() => server.stop());

    const listedIds = async (url: string, by = family) => (dataOf(await by.inject('GET', url)) as Body[]).map((row) => row.id);

    it('finds quotes, backslashes, wildcards and SQL in search text as plain text', async () => {

        expect(await listedIds(`/api/v1/persons?search=${encodeURIComponent(`o'brien`)}`)).to.equal([ids.hostile, ids.quote]);
        expect(await listedIds(`/api/v1/persons?search=${encodeURIComponent('"bob" \\ 100% _x_')}`)).to.equal([ids.hostile]);
        expect(await listedIds(`/api/v1/persons?search=${encodeURIComponent(`'); DELETE FROM persons; --`)}`)).to.equal([ids.hostile]);
        expect(await listedIds(`/api/v1/persons?search=${encodeURIComponent(`'x'`)}`)).to.equal([]);
        expect(await listedIds('/api/v1/persons')).to.have.length(3);
    });

    it('matches filter values with quotes and SQL whole and literally', async () => {

        expect(await listedIds(`/api/v1/persons?filter[birth_place]=${encodeURIComponent(hostile)}`)).to.equal([ids.hostile]);
        expect(await listedIds(`/api/v1/persons?filter[last_name]=${encodeURIComponent(`O'Brien`)}`)).to.equal([ids.quote]);
        expect(await listedIds(`/api/v1/persons?filter[last_name]=${encodeURIComponent(`O'Brien'`)}`)).to.equal([]);
    });

    it('takes a cursor value with quotes and SQL as a value to page after', async () => {

        // last_name ascending: "O'Brien" < "O'Brien \"Bob\"…" < "Smith"; an id after every id, so the cursor's own name is passed.
        const after = (value: string) => encodeCursor({ sort: 'last_name', direction: 'asc', value, id: 'per_zzzzzzzzzzzzzzzzzzzz' });
        expect(await listedIds(`/api/v1/persons?sort=last_name&cursor=${after(`O'Brien`)}`)).to.equal([ids.hostile, ids.plain]);
        expect(await listedIds(`/api/v1/persons?sort=last_name&cursor=${after(`'); DELETE FROM persons; --`)}`)).to.equal([ids.quote, ids.hostile, ids.plain]);
        expect(await listedIds('/api/v1/persons')).to.have.length(3);
    });

    it('pages after timestamp cursors before and after every record, and answers an empty page without a cursor', async () => {

        const after = (value: string) => encodeCursor({ sort: 'created_at', direction: 'asc', value, id: 'per_00000000000000000000' });
        expect(await listedIds(`/api/v1/persons?cursor=${after('1970-01-01T00:00:00.000Z')}`)).to.equal([ids.hostile, ids.quote, ids.plain]);

        const response = await family.inject('GET', `/api/v1/persons?cursor=${after('2999-12-31T23:59:59.999Z')}`);
        expect(bodyOf(response)).to.equal({ data: [], meta: { resource: 'persons', count: 0, next_cursor: null } });
        expect(response.headers.link).to.not.exist();
    });

    it('pages after a timestamp cursor at a record\'s own time, as the API wrote it', async () => {

        const [first, second] = dataOf(await family.inject('GET', '/api/v1/persons?limit=2')) as Body[];
        const cursor = encodeCursor({ sort: 'created_at', direction: 'asc', value: first.created_at as string, id: first.id as string });
        expect((await listedIds(`/api/v1/persons?cursor=${cursor}`))[0]).to.equal(second.id);
    });

    it('keeps another family\'s cursor from reaching past this family\'s records', async () => {

        const page = bodyOf(await other.inject('GET', '/api/v1/persons?limit=1'));
        expect(page.meta.next_cursor).to.be.a.string();
        const continued = await listedIds(`/api/v1/persons?limit=10&cursor=${page.meta.next_cursor}`);
        expect(continued.every((id) => Object.values(ids).includes(id as string))).to.be.true();
        expect(await listedIds(`/api/v1/persons?limit=10&cursor=${page.meta.next_cursor}`, other)).to.have.length(2);
    });

    it('refuses a cursor whose value does not fit the sort field, before any SQL', async () => {

        const cursor = encodeCursor({ sort: 'created_at', direction: 'asc', value: `2026-01-01' OR '1'='1`, id: 'per_' });
        expectError(await family.inject('GET', `/api/v1/persons?cursor=${cursor}`), 400, 'invalid_request', 'cursor');
    });

    it('lists every resource\'s records exactly as it reads each one', async () => {

        for (const name of resourceNames) {
            for (let variant = 0; variant < 3; variant++) {
                await insertRecord(server, family.familyLongId, name, storedValues(name, variant));
            }

            const listed = dataOf(await family.inject('GET', `/api/v1/${name}?limit=2`)) as Body[];
            expect(listed).to.have.length(2);
            for (const record of listed) {
                const read = dataOf(await family.inject('GET', `/api/v1/${name}/${record.id}`));
                // A gallery URL is signed afresh, with its own expiry, for every response.
                expect(omitSigned(record)).to.equal(omitSigned(read));
            }
        }
    });

    it('reads every resource\'s records for an export as it reads each one, integers as numbers and timestamps as ISO', async () => {

        const exporter = await familyWithKey(server);
        const reader = listReader(server.app.services.sequelize);
        for (const name of resourceNames) {
            const values = { ...storedValues(name, 1), ...name === 'finances' ? { amount_minor: -1250 } : {} };
            const id = await insertRecord(server, exporter.familyLongId, name, values);
            // The export's own reading, with no extension: a gallery item's URL is not the reader's to add.
            const find = listedRecords(reader, testVariant, resources[name]);
            const read = await find(listStatement(resources[name], { familyLongId: exporter.familyLongId, sort: 'created_at', direction: 'asc', filters: {} }, testVariant, 10));
            expect(read).to.equal([omitSigned(dataOf(await exporter.inject('GET', `/api/v1/${name}/${id}`)))]);
        }

        await reader.close();
    });

    it('looks for each search word folded, in the folded search text only, and never reads that text out', () => {

        const { sql, bind } = listStatement(persons, { familyLongId: family.familyLongId, search: 'ÉMILE  Østergaard', sort: 'created_at', direction: 'asc', filters: {} }, testVariant, 1);
        expect(bind).to.equal([family.familyLongId, 'emile', 'ostergaard', 1]);
        expect(sql.match(/"search_text"/g)).to.have.length(2);
        expect(sql).to.not.contain('*');
        expect(sql).to.not.contain('ILIKE');
        expect(sql).to.not.contain('lower(');
    });

    describe('a page as the database writes its JSON', () => {

        let writer: FamilyFixture;
        before(async () => {

            writer = await familyWithKey(server);
        });

        // Line breaks and the records' own separator inside a value, JSON that looks like a record, quotes, escapes,
        // a control character, accents and characters beyond the BMP (two UTF-16 units each in JavaScript).
        const trickyNotes = [
            'line one,\nline two\r\n\t"quoted" \\ back\u0001slash',
            ',\n{"id":"per_forged","first_name":"Forged"},\n',
            'Åsa Ødegård Müller 𝄞 😀 家族',
            `${hostile}\u2028\u2029`
        ];

        it('shows every value as the record reads, key for key, and continues after the last record of a full page', async () => {

            const created: string[] = [];
            for (const [index, notes] of trickyNotes.entries()) {
                created.push(dataOf(await writer.inject('POST', '/api/v1/persons', { first_name: `Tricky ${index} 😀`, last_name: notes.slice(0, 40), notes }), 201).id);
                await nextMillisecond();
            }

            const first = await writer.inject('GET', '/api/v1/persons?limit=3');
            expect(first.headers['content-type']).to.equal('application/json; charset=utf-8');
            const page = bodyOf(first);
            expect(page.meta).to.equal({ resource: 'persons', count: 3, next_cursor: page.meta.next_cursor });
            const rest = bodyOf(await writer.inject('GET', `/api/v1/persons?limit=3&cursor=${page.meta.next_cursor}`));
            expect(rest.meta).to.equal({ resource: 'persons', count: 1, next_cursor: null });

            const listed = [...page.data, ...rest.data] as Body[];
            expect(listed.map((record) => record.id)).to.equal(created);
            for (const record of listed) {
                const read = dataOf(await writer.inject('GET', `/api/v1/persons/${record.id}`));
                expect(record).to.equal(read);
                expect(Object.keys(record)).to.equal(Object.keys(read));
            }
        });

        it('shows timestamps stored in another shape than the service writes as the record reads', async () => {

            const id = dataOf(await writer.inject('POST', '/api/v1/persons', { first_name: 'Zoned', last_name: 'Zone' }), 201).id;
            // Another offset, a shorter fraction (SQLite's text); microseconds beyond the API's milliseconds (PostgreSQL).
            const stored = testVariant === 'sqlite' ? '2026-03-04 05:06:07.89 +02:00' : '2026-03-04 05:06:07.123456+02';
            await server.app.services.sequelize.query('UPDATE persons SET created_at = ?, updated_at = ? WHERE id = ?', { replacements: [stored, stored, id] });

            const listed = (dataOf(await writer.inject('GET', '/api/v1/persons?filter[first_name]=Zoned')) as Body[])[0];
            expect(listed.created_at).to.equal(testVariant === 'sqlite' ? '2026-03-04T03:06:07.890Z' : '2026-03-04T03:06:07.123Z');
            expect(listed.updated_at).to.equal(listed.created_at);
            expect(listed).to.equal(dataOf(await writer.inject('GET', `/api/v1/persons/${id}`)));
        });
    });
});

