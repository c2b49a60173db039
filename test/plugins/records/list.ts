import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { fieldNamesWhere, resourceNames, resources, type ResourceName } from '../../../models/resources';
import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { maxSearchWords } from '../../../plugins/records/schemas';
import { createBody, dataOf, expectError, insertRecord, nextMillisecond, storedValues, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('records API v1: search, sort and filter', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    /** Creates a record with the API where it can, else the way uploads will; returns it as the API shows it. */
    async function addRecord(family: FamilyFixture, name: ResourceName, values: Body): Promise<Body> {

        if (resources[name].creatable) {
            return dataOf(await family.inject('POST', `/api/v1/${name}`, values), 201);
        }

        const id = await insertRecord(server, family.familyLongId, name, values);
        return dataOf(await family.inject('GET', `/api/v1/${name}/${id}`));
    }

    /** The base values of a record: every writable field, or with `full` also the read-only ones. */
    const valuesOf = (name: ResourceName, variant: number, full = true) => (resources[name].creatable || !full ? createBody(name, { variant }) : storedValues(name, variant));

    const list = async (family: FamilyFixture, url: string): Promise<Body[]> => dataOf(await family.inject('GET', url));
    const idsOf = (rows: Body[]) => rows.map((row) => row.id);
    /** Ids in a fixed order, for comparing sets of records whose list order ties. */
    const sortedIdsOf = (rows: Body[]) => idsOf(rows).sort();

    describe('search=', () => {

        let family: FamilyFixture;
        const people: Record<string, string> = {};

        before(async () => {

            family = await familyWithKey(server);
            const entries: [string, Body][] = [
                ['ada', { first_name: 'Ada', last_name: 'Lovelace' }],
                ['adaByron', { first_name: 'Ada', last_name: 'Byron', birth_place: 'London' }],
                ['charles', { first_name: 'Charles', last_name: 'Babbage', notes: 'Corresponded with ADA about the engine.' }],
                ['percent', { first_name: 'Fifty', last_name: '50% share' }],
                ['zeros', { first_name: 'Five hundred', last_name: '500 share' }],
                ['underscore', { first_name: 'snake_case', last_name: 'Python' }],
                ['noUnderscore', { first_name: 'snakescase', last_name: 'Python' }],
                ['backslash', { first_name: 'back\\slash', last_name: 'Escape' }]
            ];
            for (const [label, values] of entries) {
                people[label] = (await addRecord(family, 'persons', values)).id as string;
            }
        });

        const found = async (search: string) => sortedIdsOf(await list(family, `/api/v1/persons?search=${encodeURIComponent(search)}&limit=100`));
        const expected = (...labels: string[]) => labels.map((label) => people[label]).sort();

        it('ignores case', async () => {

            expect(await found('lovelace')).to.equal(expected('ada'));
            expect(await found('LOVELACE')).to.equal(expected('ada'));
            expect(await found('aDa')).to.equal(expected('ada', 'adaByron', 'charles'));
        });

        it('needs every word, each in any searchable field', async () => {

            expect(await found('ada lovelace')).to.equal(expected('ada'));
            expect(await found('  ada   london ')).to.equal(expected('adaByron'));
            expect(await found('babbage ada')).to.equal(expected('charles'));
            expect(await found('ada nobody')).to.equal([]);
        });

        it('refuses more words than it will search for, rather than ignoring some', async () => {

            const words = Array.from({ length: maxSearchWords }, () => 'ada');
            expect(await found(words.join(' '))).to.equal(expected('ada', 'adaByron', 'charles'));
            expect(await found([...words.slice(1), 'nobody'].join(' '))).to.equal([]);

            const tooMany = encodeURIComponent([...words, 'nobody'].join(' '));
            expectError(await family.inject('GET', `/api/v1/persons?search=${tooMany}`), 400, 'invalid_request', 'search');
            expectError(await family.inject('GET', `/api/v1/all?search=${tooMany}`), 400, 'invalid_request', 'search');
        });

        it('takes % and _ literally', async () => {

            expect(await found('50%')).to.equal(expected('percent'));
            expect(await found('%')).to.equal(expected('percent'));
            expect(await found('snake_case')).to.equal(expected('underscore'));
            expect(await found('_')).to.equal(expected('underscore'));
            expect(await found('\\')).to.equal(expected('backslash'));
            expect(await found('k\\s')).to.equal(expected('backslash'));
        });

        it('does not look in fields that are not searchable', async () => {

            const dated = await addRecord(family, 'persons', { first_name: 'Dated', last_name: 'Person', birth_date: '1777', gender: 'female' });
            expect(await found('1777')).to.equal([]);
            expect(await found('female')).to.equal([]);
            expect(await found('dated')).to.equal([dated.id]);
        });

        for (const name of resourceNames) {

            it(`finds ${name} by each searchable field`, async () => {

                const own = await familyWithKey(server);
                const searchable = fieldNamesWhere(resources[name], (field) => field.searchable);
                expect(searchable).to.not.be.empty();

                const byField: Record<string, unknown> = {};
                for (const [index, field] of searchable.entries()) {
                    byField[field] = (await addRecord(own, name, { ...valuesOf(name, index), [field]: `Found by Needle${index}x here` })).id;
                }

                for (const [index, field] of searchable.entries()) {
                    expect(idsOf(await list(own, `/api/v1/${name}?search=needle${index}X`)), field).to.equal([byField[field]]);
                }
            });
        }
    });

    describe('sort= and direction=', () => {

        /** Each value in order for the direction, empty values after all the others. */
        function expectSorted(values: unknown[], direction: 'asc' | 'desc', label: string): void {

            const firstNull = values.indexOf(null);
            const present = firstNull === -1 ? values : values.slice(0, firstNull);
            expect(values.slice(present.length).every((value) => value === null), `${label}: empty values last`).to.be.true();

            const ordered = [...present].sort((a, b) => ((a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0));
            expect(present, label).to.equal(direction === 'asc' ? ordered : ordered.reverse());
        }

        for (const name of resourceNames) {

            it(`sorts ${name} on each sortable field, both ways, empty values last`, async () => {

                const family = await familyWithKey(server);
                for (const variant of [2, 0, 3, 1]) {          // created out of value order
                    await addRecord(family, name, valuesOf(name, variant));
                }

                await addRecord(family, name, createBody(name, { requiredOnly: true }));
                await addRecord(family, name, createBody(name, { requiredOnly: true, variant: 4 }));

                for (const field of fieldNamesWhere(resources[name], (declared) => declared.sortable)) {
                    for (const direction of ['asc', 'desc'] as const) {
                        const rows = await list(family, `/api/v1/${name}?sort=${field}&direction=${direction}`);
                        expect(rows).to.have.length(6);
                        expectSorted(rows.map((row) => row[field]), direction, `${name} sort=${field}&direction=${direction}`);
                    }
                }
            });
        }

        it('lists by creation time, oldest first, unless told otherwise', async () => {

            const family = await familyWithKey(server);
            for (const variant of [1, 0, 2]) {
                await addRecord(family, 'trees', valuesOf('trees', variant));
                await nextMillisecond();
            }

            const byDefault = await list(family, '/api/v1/trees');
            expect(byDefault).to.equal(await list(family, '/api/v1/trees?sort=created_at&direction=asc'));
            expect(byDefault.map((row) => row.name)).to.equal(['sample ab', 'sample aa', 'sample ac']);
            expect(idsOf(await list(family, '/api/v1/trees?direction=desc'))).to.equal(idsOf(byDefault).reverse());
        });
    });

    describe('filter[field]=', () => {

        for (const name of resourceNames) {

            it(`filters ${name} on each filterable field`, async () => {

                const family = await familyWithKey(server);
                const references = Object.entries(resources[name].fields).filter(([, field]) => field.type === 'reference');
                const records: Body[] = [];
                for (const variant of [0, 1]) {
                    const values = valuesOf(name, variant);
                    for (const [field, declared] of references) {
                        values[field] = await insertRecord(server, family.familyLongId, declared.references!);
                    }

                    records.push(await addRecord(family, name, values));
                }

                records.push(await addRecord(family, name, createBody(name, { requiredOnly: true, variant: 2 })));
                const everything = await list(family, `/api/v1/${name}?limit=100`);         // the referenced records may be of this resource too

                for (const field of fieldNamesWhere(resources[name], (declared) => declared.filterable)) {
                    for (const record of records.filter((row) => row[field] !== null)) {
                        const matching = sortedIdsOf(everything.filter((row) => row[field] === record[field]));
                        const url = `/api/v1/${name}?filter[${field}]=${encodeURIComponent(String(record[field]))}`;
                        expect(sortedIdsOf(await list(family, url)), url).to.equal(matching);
                    }
                }
            });
        }

        it('matches whole values and combines several filters with and', async () => {

            const family = await familyWithKey(server);
            const ada = await addRecord(family, 'persons', { first_name: 'Ada', last_name: 'King', gender: 'female' });
            const william = await addRecord(family, 'persons', { first_name: 'William', last_name: 'King', gender: 'male' });

            expect(sortedIdsOf(await list(family, '/api/v1/persons?filter[last_name]=King'))).to.equal(sortedIdsOf([ada, william]));
            expect(idsOf(await list(family, '/api/v1/persons?filter[last_name]=Kin'))).to.equal([]);
            expect(idsOf(await list(family, '/api/v1/persons?filter[last_name]=King&filter[gender]=male'))).to.equal([william.id]);
            expect(idsOf(await list(family, '/api/v1/persons?filter[first_name]=Ada&filter[gender]=male'))).to.equal([]);
            expect(idsOf(await list(family, '/api/v1/persons?filter[gender]=male&search=ada'))).to.equal([]);
            expect(idsOf(await list(family, '/api/v1/persons?filter[gender]=female&search=king'))).to.equal([ada.id]);
        });

        it('matches a text however Unicode composes it: Zoë as one character or as e and a combining diaeresis', async () => {

            const family = await familyWithKey(server);
            const composed = await addRecord(family, 'persons', { first_name: 'Zo\u00EB', last_name: 'M\u00FCller' });
            const decomposed = await addRecord(family, 'persons', { first_name: 'Zoe\u0308', last_name: 'Mu\u0308ller' });
            await addRecord(family, 'persons', { first_name: 'Zoe', last_name: 'Muller' });

            for (const name of ['Zo%C3%AB', 'Zoe%CC%88']) {
                expect(sortedIdsOf(await list(family, `/api/v1/persons?filter[first_name]=${name}`)), name).to.equal(sortedIdsOf([composed, decomposed]));
                expect(sortedIdsOf(await list(family, `/api/v1/persons?filter[first_name]=${name}&filter[last_name]=Mu%CC%88ller`)), name).to.equal(sortedIdsOf([composed, decomposed]));
            }

            expect(sortedIdsOf(await list(family, '/api/v1/persons?filter[first_name]=Zoe'))).to.have.length(1);
        });
    });
});
