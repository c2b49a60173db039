import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { resources } from '../../../models/resources';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { createBody, dataOf, insertRecord } from '../records/fixtures';
import { asCsvStrings, bom, csvHeader, exportText, jsonList, parseCsv } from './helpers';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const csvType = /^text\/csv; charset=utf-8$/;
const personColumns = ['id', ...Object.keys(resources.persons.fields), 'revision', 'created_at', 'updated_at'];

describe('format=csv', () => {

    let server: Server;
    let family: FamilyFixture;

    const names = [
        ['Anna', 'Berg', 'female'], ['Annika', 'Dahl', 'female'], ['Johan', 'Anand', 'male'], ['Zoë', 'Müller', 'female'],
        ['Per', 'Strand', 'male'], ['Elin', 'Ek', 'other'], ['Lars', 'Annerstedt', 'male'], ['Ingrid', 'Holm', 'unknown']
    ];

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        for (const [index, [first, last, gender]] of names.entries()) {
            dataOf(await family.inject('POST', '/api/v1/persons', { first_name: first, last_name: last, gender, birth_date: `${1900 + index}-0${1 + index}` }), 201);
        }
    });

    after(() => server.stop());

    it('answers a file named after the family, the resource and the day, UTF-8 with a BOM', async () => {

        const { text, response } = await exportText(family, '/api/v1/persons?format=csv', csvType);
        const today = new Date().toISOString().slice(0, 10);
        expect(response.headers['content-disposition']).to.equal(`attachment; filename="test-family-persons-${today}.csv"`);
        expect(response.rawPayload.subarray(0, 3)).to.equal(Buffer.from([0xef, 0xbb, 0xbf]));
        expect(text.startsWith(`${bom}id,`)).to.be.true();
        expect(text).to.contain('Zoë,Müller');
    });

    it('has a header of the declared columns and CRLF line ends', async () => {

        const { text } = await exportText(family, '/api/v1/persons?format=csv', csvType);
        expect(csvHeader(text)).to.equal(personColumns);
        expect(text.split('\r\n')).to.have.length(names.length + 1);
        expect(text.replace(/\r\n/g, '')).to.not.contain('\n');
    });

    for (const query of ['', 'search=ann', 'sort=last_name&direction=desc', 'filter[gender]=female', 'search=an&sort=first_name&filter[gender]=male', 'sort=birth_date&direction=desc&search=zoë']) {
        it(`holds exactly what the JSON list holds, in its order: ${query || 'no parameters'}`, async () => {

            const json = await jsonList(family, '/api/v1/persons', query);
            const { text } = await exportText(family, `/api/v1/persons?format=csv&${query}`, csvType);
            expect(parseCsv(text)).to.equal(json.map((record) => asCsvStrings(record, personColumns)));
        });
    }

    it('quotes commas, quotes and line breaks as RFC 4180 asks', async () => {

        const own = await familyWithKey(server);
        const notes = 'Moved to Göteborg, then "home"\r\nagain\nand once more';
        dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Karl, Jr.', last_name: 'O"Neill', notes }), 201);

        const { text } = await exportText(own, '/api/v1/persons?format=csv', csvType);
        expect(text).to.contain('"Karl, Jr.","O""Neill"');
        expect(text).to.contain('"Moved to Göteborg, then ""home""\r\nagain\nand once more"');
        const [row] = parseCsv(text);
        expect(row.first_name).to.equal('Karl, Jr.');
        expect(row.last_name).to.equal('O"Neill');
        expect(row.notes).to.equal(notes);
    });

    it('neutralises cells a spreadsheet would run as formulas', async () => {

        const own = await familyWithKey(server);
        const hostile = [
            '=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '-', '@SUM(A1)', '\t=1', '\r=1', '\n=1+1',
            ' =1+1', '\u00a0=1+1', '\u3000+1', ' \t @SUM(A1)', '\u2003-2+3',                       // whitespace spreadsheets skip
            '\uff1d1+1', '\uff0b1', '\uff0d1', '\uff20SUM(A1)', ' \uff1d1+1'                        // full-width = + - @
        ];
        for (const value of hostile) {
            dataOf(await own.inject('POST', '/api/v1/persons', { first_name: value, last_name: 'Safe' }), 201);
        }

        const { text } = await exportText(own, '/api/v1/persons?format=csv', csvType);
        const firstNames = parseCsv(text).map((row) => row.first_name);
        expect(firstNames).to.equal(hostile.map((value) => `'${value}`));
        expect(text).to.contain('"\'=HYPERLINK(""http://evil.example"",""x"")"');
    });

    it('leaves numbers and harmless text alone', async () => {

        const own = await familyWithKey(server);
        dataOf(await own.inject('POST', '/api/v1/finances', { ...createBody('finances'), description: ' Refund', amount_minor: -1250, notes: 'a = b' }), 201);
        const [row] = parseCsv((await exportText(own, '/api/v1/finances?format=csv', csvType)).text);
        expect(row.amount_minor).to.equal('-1250');
        expect(row.description).to.equal(' Refund');
        expect(row.notes).to.equal('a = b');
    });

    it('exports the whole collection, beyond one page, and `limit` caps it', async () => {

        const own = await familyWithKey(server);
        for (let index = 0; index < 130; index++) {
            await insertRecord(server, own.familyLongId, 'trees', { name: `Tree ${String(index).padStart(3, '0')}` });
        }

        const all = parseCsv((await exportText(own, '/api/v1/trees?format=csv&sort=name', csvType)).text);
        expect(all.map((row) => row.name)).to.equal(Array.from({ length: 130 }, (_, index) => `Tree ${String(index).padStart(3, '0')}`));

        const capped = parseCsv((await exportText(own, '/api/v1/trees?format=csv&sort=name&direction=desc&limit=120', csvType)).text);
        expect(capped).to.have.length(120);
        expect(capped[0].name).to.equal('Tree 129');
    });

    it('exports an empty list as the header alone', async () => {

        const own = await familyWithKey(server);
        const { text } = await exportText(own, '/api/v1/projects?format=csv', csvType);
        expect(text).to.equal(`${bom}${['id', ...Object.keys(resources.projects.fields), 'revision', 'created_at', 'updated_at'].join(',')}`);
    });

    describe('/api/v1/all', () => {

        it('is one CSV with a leading resource column, the union of the columns, and every resource in the key\'s scope', async () => {

            const own = await familyWithKey(server, { keyResources: ['persons', 'events', 'trees'] });
            const person = dataOf(await own.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);
            dataOf(await own.inject('POST', '/api/v1/events', { title: 'Birth of Ada', type: 'birth', date: '1990', person_id: person.id }), 201);
            dataOf(await own.inject('POST', '/api/v1/trees', { name: 'Berg tree' }), 201);
            await insertRecord(server, own.familyLongId, 'gallery');

            const { text, response } = await exportText(own, '/api/v1/all?format=csv', csvType);
            expect(response.headers['content-disposition']).to.match(/^attachment; filename="test-family-all-\d{4}-\d{2}-\d{2}\.csv"$/);

            const header = csvHeader(text);
            expect(header.slice(0, 2)).to.equal(['resource', 'id']);
            expect(header.slice(-3)).to.equal(['revision', 'created_at', 'updated_at']);
            for (const name of ['trees', 'persons', 'events'] as const) {
                expect(header).to.include(Object.keys(resources[name].fields));
            }

            expect(new Set(header).size).to.equal(header.length);
            expect(header).to.not.include('original_name');         // gallery is outside the key's scope

            const rows = parseCsv(text);
            expect(rows.map((row) => row.resource)).to.equal(['trees', 'persons', 'events']);
            expect(rows[1]).to.include({ first_name: 'Ada', last_name: 'Berg', title: '' });
            expect(rows[2]).to.include({ title: 'Birth of Ada', person_id: person.id, first_name: '' });
        });

        it('applies search and order to every resource, as the JSON does', async () => {

            const json = JSON.parse((await family.inject('GET', '/api/v1/all?search=ann&sort=created_at&direction=desc')).payload).data;
            const rows = parseCsv((await exportText(family, '/api/v1/all?format=csv&search=ann&sort=created_at&direction=desc', csvType)).text);
            const expected = Object.entries(json as Record<string, { id: string }[]>).flatMap(([name, records]) => records.map((record) => `${name}:${record.id}`));
            expect(rows.map((row) => `${row.resource}:${row.id}`)).to.equal(expected);
            expect(expected.length).to.be.above(2);
        });
    });

    it('never shows another family\'s records', async () => {

        const other = await familyWithKey(server);
        dataOf(await other.inject('POST', '/api/v1/persons', { first_name: 'Hidden', last_name: 'Stranger' }), 201);

        const mine = (await exportText(family, '/api/v1/all?format=csv', csvType)).text;
        expect(mine).to.not.contain('Stranger');
        expect(parseCsv((await exportText(other, '/api/v1/persons?format=csv', csvType)).text).map((row) => row.last_name)).to.equal(['Stranger']);
    });
});
