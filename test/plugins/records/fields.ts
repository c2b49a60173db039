import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { isWritable, resourceNames, resources, type ResourceName } from '../../../models/resources';
import { finances } from '../../../models/resources/finances';
import { genders } from '../../../models/resources/persons';
import { fieldSchema } from '../../../lib/field-schemas';
import { testServerWithFamily, type FamilyFixture } from '../../helpers/server';
import { createBody, dataOf, expectError, insertRecord, storedValues, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('records API v1: field values', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        ({ server, family } = await testServerWithFamily());
    });

    after(() => server.stop());

    const createPerson = (fields: Body) => family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Lovelace', ...fields });
    const createFinance = (fields: Body) => family.inject('POST', '/api/v1/finances', { ...createBody('finances'), ...fields });

    describe('persons', () => {

        it('writes first_name, last_name and gender on create and update', async () => {

            const created = dataOf(await createPerson({ first_name: 'Augusta Ada', last_name: 'Byron', gender: 'female' }), 201);
            expect(created).to.include({ first_name: 'Augusta Ada', last_name: 'Byron', gender: 'female' });

            const updated = dataOf(await family.inject('PATCH', `/api/v1/persons/${created.id}`, { first_name: 'Ada', last_name: 'King', gender: 'other' }));
            expect(updated).to.include({ first_name: 'Ada', last_name: 'King', gender: 'other', revision: 2 });
        });

        it('accepts every declared gender and defaults to unknown', async () => {

            expect(genders).to.equal(['female', 'male', 'other', 'unknown']);
            for (const gender of genders) {
                expect(dataOf(await createPerson({ gender }), 201).gender).to.equal(gender);
            }

            expect(dataOf(await createPerson({}), 201).gender).to.equal('unknown');
        });

        it('refuses any other gender, on create and update', async () => {

            const person = dataOf(await createPerson({}), 201);
            for (const gender of ['Female', 'f', 'none', '', null, 1]) {
                expectError(await createPerson({ gender }), 400, 'invalid_request', 'gender');
                expectError(await family.inject('PATCH', `/api/v1/persons/${person.id}`, { gender }), 400, 'invalid_request', 'gender');
            }

            expect(dataOf(await family.inject('GET', `/api/v1/persons/${person.id}`))).to.include({ gender: 'unknown', revision: 1 });
        });

        it('accepts partial dates YYYY, YYYY-MM and YYYY-MM-DD', async () => {

            // Years below 100 too (Date.UTC() took 0079 for 1979); 0004 and 0000 were leap years, 0100 was not.
            for (const date of ['1815', '1815-12', '1815-12-10', '2024-02-29', '0079', '0079-08-24', '0004-02-29', '0000-02-29', '0001-01-01']) {
                const created = dataOf(await createPerson({ birth_date: date, death_date: date }), 201);
                expect(created).to.include({ birth_date: date, death_date: date });
                expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${created.id}`, { birth_date: '1815', death_date: '1852' })).death_date).to.equal('1852');
            }
        });

        it('refuses a death before the birth, on create and on update, naming the date the write set and changing nothing', async () => {

            expectError(await createPerson({ birth_date: '1950-03-10', death_date: '1950-03-09' }), 400, 'invalid_request', 'death_date: 1950-03-09 is before the birth date 1950-03-10');
            expectError(await createPerson({ birth_date: '1950', death_date: '1949-12-31' }), 400, 'invalid_request', 'death_date');

            const born = dataOf(await createPerson({ birth_date: '1950-03-10' }), 201);
            expectError(await family.inject('PATCH', `/api/v1/persons/${born.id}`, { death_date: '1950-02' }), 400, 'invalid_request', 'death_date: 1950-02 is before the birth date 1950-03-10');
            expectError(await family.inject('PATCH', `/api/v1/persons/${born.id}`, { birth_date: '2001', death_date: '2000-12-31' }), 400, 'invalid_request', 'death_date');

            const lived = dataOf(await createPerson({ birth_date: '1900', death_date: '1980-05' }), 201);
            expectError(await family.inject('PATCH', `/api/v1/persons/${lived.id}`, { birth_date: '1980-06-01' }), 400, 'invalid_request', 'birth_date: 1980-06-01 is after the death date 1980-05');

            for (const person of [born, lived]) {
                expect(dataOf(await family.inject('GET', `/api/v1/persons/${person.id}`))).to.equal(person);
            }
        });

        it('takes a death and a birth that partial dates cannot order, or on one day, and a birth or death alone', async () => {

            for (const [birth, death] of [['1950-03', '1950'], ['1950', '1950-01-01'], ['1950-03-10', '1950-03'], ['1950-03-10', '1950-03-10'], ['0000', '0000-02-29']]) {
                expect(dataOf(await createPerson({ birth_date: birth, death_date: death }), 201)).to.include({ birth_date: birth, death_date: death });
            }

            const lived = dataOf(await createPerson({ birth_date: '1900', death_date: '1980-05' }), 201);
            expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${lived.id}`, { birth_date: '1980' }))).to.include({ birth_date: '1980', revision: 2 });
            expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${lived.id}`, { death_date: null, birth_date: '2000' }))).to.include({ birth_date: '2000', death_date: null, revision: 3 });
            expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${lived.id}`, { birth_date: null, death_date: '1700' }))).to.include({ birth_date: null, death_date: '1700', revision: 4 });
        });

        it('leaves a death before the birth stored before that rule alone when a write sets neither date', async () => {

            const id = dataOf(await createPerson({ birth_date: '1990' }), 201).id as string;
            await server.app.services.models.records.persons.update({ death_date: '1890' }, { where: { id } });
            expect(dataOf(await family.inject('PATCH', `/api/v1/persons/${id}`, { notes: 'The death year is a typo for 1990.' }))).to.include({ birth_date: '1990', death_date: '1890', revision: 2 });
            expectError(await family.inject('PATCH', `/api/v1/persons/${id}`, { death_date: '1891' }), 400, 'invalid_request', 'death_date');
        });

        it('refuses dates that are not real calendar dates or not in the format', async () => {

            const person = dataOf(await createPerson({}), 201);
            for (const date of ['2023-02-30', '2023-02-29', '0079-02-29', '0100-02-29', '0099-13', '1815-13', '1815-00', '1815-12-32', '1815-12-00', '15', '1815-1', '1815/12/10', '10-12-1815', '1815-12-10T00:00:00Z', 1815]) {
                expectError(await createPerson({ birth_date: date }), 400, 'invalid_request', 'birth_date');
                expectError(await family.inject('PATCH', `/api/v1/persons/${person.id}`, { death_date: date }), 400, 'invalid_request', 'death_date');
            }
        });

        it('clears optional fields with null, but not required ones', async () => {

            const person = dataOf(await createPerson({ birth_name: 'Byron', birth_date: '1815', notes: 'Mathematician' }), 201);
            const cleared = dataOf(await family.inject('PATCH', `/api/v1/persons/${person.id}`, { birth_name: null, birth_date: null, notes: null }));
            expect(cleared).to.include({ birth_name: null, birth_date: null, notes: null, first_name: 'Ada', revision: 2 });

            expectError(await family.inject('PATCH', `/api/v1/persons/${person.id}`, { last_name: null }), 400, 'invalid_request', 'last_name');
            expectError(await family.inject('PATCH', `/api/v1/persons/${person.id}`, { first_name: '' }), 400, 'invalid_request', 'first_name');
        });

        it('keeps strings up to their declared length', async () => {

            expect(dataOf(await createPerson({ first_name: 'a'.repeat(100) }), 201).first_name).to.have.length(100);
            expectError(await createPerson({ first_name: 'a'.repeat(101) }), 400, 'invalid_request', 'first_name');
        });
    });

    describe('finances', () => {

        it('keeps amount_minor exact up to the largest safe integer, on create, read, update, list and filter', async () => {

            const largest = Number.MAX_SAFE_INTEGER;          // 9007199254740991
            const created = dataOf(await createFinance({ amount_minor: largest }), 201);
            expect(created.amount_minor).to.equal(largest);
            expect(dataOf(await family.inject('GET', `/api/v1/finances/${created.id}`)).amount_minor).to.equal(largest);

            const listed = dataOf(await family.inject('GET', `/api/v1/finances?filter[amount_minor]=${largest}`));
            expect(listed.map((row: Body) => [row.id, row.amount_minor])).to.equal([[created.id, largest]]);

            const updated = dataOf(await family.inject('PATCH', `/api/v1/finances/${created.id}`, { amount_minor: -largest }));
            expect(updated.amount_minor).to.equal(-largest);
            expect(dataOf(await family.inject('GET', `/api/v1/finances/${created.id}`)).amount_minor).to.equal(-largest);
        });

        it('refuses amounts that are not exact integers', async () => {

            for (const amount of [12.5, 0.1, '1250', '12.50', Number.MAX_SAFE_INTEGER + 1, null, true]) {
                expectError(await createFinance({ amount_minor: amount }), 400, 'invalid_request', 'amount_minor');
            }

            const response = await family.inject('POST', '/api/v1/finances', `{"description":"x","kind":"income","currency":"EUR","amount_minor":9007199254740993}`, { 'content-type': 'application/json' });
            expectError(response, 400, 'invalid_request', 'amount_minor');
        });

        it('accepts three capital letters as currency and nothing else', async () => {

            expect(dataOf(await createFinance({ currency: 'JPY' }), 201).currency).to.equal('JPY');
            const entry = dataOf(await createFinance({}), 201);
            for (const currency of ['eur', 'EURO', 'EU', 'E1R', ' EUR', '', null, 978]) {
                expectError(await createFinance({ currency }), 400, 'invalid_request', 'currency');
                expectError(await family.inject('PATCH', `/api/v1/finances/${entry.id}`, { currency }), 400, 'invalid_request', 'currency');
            }
        });

        it('accepts every ISO 4217 code in current use that Node\'s ICU lists, on create, update and filter', async () => {

            const codes = Intl.supportedValuesOf('currency');
            expect(codes).to.include(['EUR', 'USD', 'JPY', 'CHF', 'XOF', 'XDR']);
            for (const currency of codes) {
                expect(fieldSchema(finances.fields.currency).validate(currency).error, currency).to.not.exist();
            }

            const entry = dataOf(await createFinance({ currency: 'XOF' }), 201);
            expect(dataOf(await family.inject('PATCH', `/api/v1/finances/${entry.id}`, { currency: 'CHF' })).currency).to.equal('CHF');
            expect(dataOf(await family.inject('GET', '/api/v1/finances?filter[currency]=CHF')).map((row: Body) => row.id)).to.include(entry.id);
        });

        it('refuses three capital letters that are no currency in current use, naming the field and what it takes, on create and update', async () => {

            const entry = dataOf(await createFinance({}), 201);
            // Unassigned, the "no currency" and test codes, a precious metal, a bond-market unit, withdrawn currencies (Deutsche Mark, bolívar fuerte).
            for (const currency of ['XYZ', 'ABC', 'XXX', 'XTS', 'XAU', 'XBA', 'DEM', 'VEF']) {
                for (const response of [await createFinance({ currency }), await family.inject('PATCH', `/api/v1/finances/${entry.id}`, { currency })]) {
                    expectError(response, 400, 'invalid_request', '"currency" must be an ISO 4217 currency code in current use, such as EUR or USD');
                }
            }

            expect(dataOf(await family.inject('GET', `/api/v1/finances/${entry.id}`))).to.include({ currency: 'AUD', revision: 1 });
        });

        it('still reads, lists, sorts, exports and updates an entry stored with a code it now refuses', async () => {

            const id = await insertRecord(server, family.familyLongId, 'finances', { ...storedValues('finances'), description: 'Stored before the check', currency: 'XYZ' });
            expect(dataOf(await family.inject('GET', `/api/v1/finances/${id}`)).currency).to.equal('XYZ');
            expect(dataOf(await family.inject('GET', '/api/v1/finances?sort=currency&direction=desc&limit=1'))).to.equal([dataOf(await family.inject('GET', `/api/v1/finances/${id}`))]);
            expect(dataOf(await family.inject('GET', '/api/v1/all')).finances.map((row: Body) => row.currency)).to.include('XYZ');
            // A filter compares with what is stored: any well-formed code, whether or not a new value may be it.
            expect(dataOf(await family.inject('GET', '/api/v1/finances?filter[currency]=XYZ')).map((row: Body) => row.id)).to.equal([id]);
            const csv = await family.inject('GET', '/api/v1/finances?format=csv&filter[currency]=XYZ');
            expect(csv.statusCode).to.equal(200);
            expect(csv.payload.trim().split('\r\n')).to.have.length(2);
            expect(csv.payload).to.contain(id);
            for (const currency of ['XXX', 'DEM']) {
                expect(dataOf(await family.inject('GET', `/api/v1/finances?filter[currency]=${currency}`))).to.equal([]);
            }

            for (const currency of ['xyz', 'XY', 'XYZW', 'X1Z', ' XYZ', '']) {
                expectError(await family.inject('GET', `/api/v1/finances?filter[currency]=${encodeURIComponent(currency)}`), 400, 'invalid_request', '"filter[currency]"');
            }

            expectError(await family.inject('GET', '/api/v1/finances?filter[currency]=xyz'), 400, 'invalid_request', '"filter[currency]" must be an ISO 4217 currency code: three capital letters');
            for (const format of ['csv', 'html', 'pdf']) {
                const exported = await family.inject('GET', `/api/v1/finances?format=${format}`);
                expect(exported.statusCode, format).to.equal(200);
                if (format !== 'pdf') {
                    expect(exported.payload, format).to.contain('XYZ');
                }
            }

            expect(dataOf(await family.inject('PATCH', `/api/v1/finances/${id}`, { description: 'Edited since' }))).to.include({ currency: 'XYZ', revision: 2 });
        });

        it('accepts income and expense as kind', async () => {

            expect(dataOf(await createFinance({ kind: 'expense' }), 201).kind).to.equal('expense');
            expectError(await createFinance({ kind: 'gift' }), 400, 'invalid_request', 'kind');
        });

        it('takes full dates only for occurred_on', async () => {

            expect(dataOf(await createFinance({ occurred_on: '2024-02-29' }), 201).occurred_on).to.equal('2024-02-29');
            expect(dataOf(await createFinance({ occurred_on: '0050-06-30' }), 201).occurred_on).to.equal('0050-06-30');
            for (const date of ['2024', '2024-02', '2023-02-29']) {
                expectError(await createFinance({ occurred_on: date }), 400, 'invalid_request', 'occurred_on');
            }
        });
    });

    describe('lengths, in characters (code points) as the API reference\'s maxLength and PostgreSQL\'s VARCHAR count them', () => {

        // Two UTF-16 units each: counted as units, n of them would be 2n.
        const beyondTheBmp = (count: number) => '😀'.repeat(count);
        const textFields = (name: ResourceName) => Object.entries(resources[name].fields).filter(([, field]) => isWritable(field) && (field.type === 'string' || field.type === 'text'));

        for (const name of resourceNames) {
            const resource = resources[name];

            it(`keeps every text field of a ${resource.singular} whole at its declared length in characters beyond the BMP, and refuses one more`, async () => {

                const id = resource.creatable ? dataOf(await family.inject('POST', `/api/v1/${name}`, createBody(name)), 201).id : await insertRecord(server, family.familyLongId, name);
                for (const [field, { max }] of textFields(name)) {
                    const longest = beyondTheBmp(max!);
                    if (resource.creatable) {
                        const created = dataOf(await family.inject('POST', `/api/v1/${name}`, { ...createBody(name), [field]: longest }), 201);
                        expect(dataOf(await family.inject('GET', `/api/v1/${name}/${created.id}`))[field], field).to.equal(longest);
                        expectError(await family.inject('POST', `/api/v1/${name}`, { ...createBody(name), [field]: beyondTheBmp(max! + 1) }), 400, 'invalid_request', `"${field}" length must be less than or equal to ${max} characters`);
                    }

                    expect(dataOf(await family.inject('PATCH', `/api/v1/${name}/${id}`, { [field]: longest }))[field], field).to.equal(longest);
                    expect(dataOf(await family.inject('GET', `/api/v1/${name}/${id}`))[field], field).to.equal(longest);
                    expectError(await family.inject('PATCH', `/api/v1/${name}/${id}`, { [field]: beyondTheBmp(max! + 1) }), 400, 'invalid_request', field);
                }
            });
        }

        it('counts characters in search and in filter values too', async () => {

            const title = `🎉${beyondTheBmp(199)}`;
            const created = dataOf(await family.inject('POST', '/api/v1/events', { ...createBody('events'), title }), 201);
            expect(dataOf(await family.inject('GET', `/api/v1/events?search=${encodeURIComponent(title)}`)).map((row: Body) => row.id)).to.equal([created.id]);
            expect(dataOf(await family.inject('GET', `/api/v1/events?filter[title]=${encodeURIComponent(title)}`)).map((row: Body) => row.id)).to.equal([created.id]);
            expectError(await family.inject('GET', `/api/v1/events?search=${encodeURIComponent(beyondTheBmp(201))}`), 400, 'invalid_request', 'search');
            expectError(await family.inject('GET', `/api/v1/all?search=${encodeURIComponent(beyondTheBmp(201))}`), 400, 'invalid_request', 'search');
            expectError(await family.inject('GET', `/api/v1/events?filter[title]=${encodeURIComponent(beyondTheBmp(201))}`), 400, 'invalid_request', 'filter[title]');
        });
    });
});
