import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { deadMarker, livingFamily, livingMarker, type LivingFamily } from '../../helpers/living-family';
import { testServer, testVariant, type FamilyFixture } from '../../helpers/server';
import { bodyOf, dataOf, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`search, filters and sorts of a redacted key on ${testVariant}`, () => {

    let server: Server;
    let family: LivingFamily;

    const list = async (by: FamilyFixture, resource: string, query: string) => dataOf(await by.inject('GET', `/api/v1/${resource}?limit=100&${query}`)) as Body[];
    const ids = (records: Body[]) => records.map((record) => record.id as string);

    /** Every record of a list read page by page through its cursors, each page `limit` long. */
    async function paged(resource: string, query: string, limit: number): Promise<Body[]> {

        const records: Body[] = [];
        let cursor: string | null = null;
        do {
            const body = bodyOf(await family.redacted.inject('GET', `/api/v1/${resource}?limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`));
            expect(body.data.length <= limit).to.be.true();
            records.push(...body.data);
            cursor = body.meta.next_cursor;
        } while (cursor);

        return records;
    }

    before(async () => {

        server = await testServer();
        family = await livingFamily(server);
    });

    after(() => server.stop());

    it('finds no living person by a name, birth place or note, where a full key does; dead persons are found', async () => {

        for (const word of ['Livia', livingMarker, `${livingMarker}-Born`, 'Marrow Bay', 'lives in', 'letters', 'Livia Marrow']) {
            const query = `search=${encodeURIComponent(word)}`;
            expect((await list(family.full, 'persons', query)).length, word).to.be.above(0);
            expect(await list(family.redacted, 'persons', query), word).to.equal([]);
        }

        const dead = await list(family.redacted, 'persons', `search=${deadMarker}`);
        expect(dead.length).to.be.above(0);
        expect(dead.every((person) => person.redacted === false)).to.be.true();
        // A person named "Living" is only a redacted one: the word finds nobody.
        expect(await list(family.redacted, 'persons', 'search=Living')).to.equal([]);
    });

    it('finds no event, gallery item, document or history entry of a living person by its text', async () => {

        for (const resource of ['events', 'gallery', 'documents', 'history']) {
            // Every title of these records says whom it is of.
            const shown = await list(family.redacted, resource, 'search=of');
            const all = await list(family.full, resource, 'search=of');
            expect(all.some((record) => record.person_id === family.persons.livingRecent), resource).to.be.true();
            expect(ids(shown), resource).to.equal(ids(all.filter((record) => !family.living.has(record.person_id as string))));
            expect(await list(family.redacted, resource, `search=${livingMarker}`), resource).to.equal([]);
            expect(await list(family.redacted, resource, 'search=Livia'), resource).to.equal([]);
        }
    });

    it('matches no living person by a hidden field, and filters on kept fields as before', async () => {

        for (const filter of [`last_name]=${livingMarker}`, 'birth_date]=1990-07-14', 'first_name]=Livia', 'first_name]=Living', 'birth_place]=Marrow%20Bay', `birth_date]=${family.cutoff}`]) {
            expect(await list(family.redacted, 'persons', `filter[${filter}`), filter).to.equal([]);
        }

        const women = await list(family.redacted, 'persons', 'filter[gender]=female');
        expect(ids(women)).to.equal(ids(await list(family.full, 'persons', 'filter[gender]=female')));
        expect(ids(women)).to.include([family.persons.livingRecent, family.persons.unknownBirth]);
        expect(women.find((person) => person.id === family.persons.livingRecent)).to.include({ first_name: 'Living', last_name: null, redacted: true });

        const children = await list(family.redacted, 'persons', `filter[parent_1_id]=${family.persons.livingRecent}`);
        expect(ids(children)).to.equal([family.persons.livingChild]);

        const events = await list(family.redacted, 'events', `filter[person_id]=${family.persons.livingRecent}`);
        expect(events.map((event) => event.redacted)).to.equal([true]);
        expect(await list(family.redacted, 'events', 'filter[place]=Marrow%20Bay&filter[person_id]=' + family.persons.livingRecent)).to.equal([]);
    });

    for (const [sort, direction] of [['birth_date', 'asc'], ['birth_date', 'desc'], ['last_name', 'asc'], ['first_name', 'desc'], ['death_date', 'asc']]) {
        it(`sorts by ${sort} ${direction} with living persons as empty, among themselves by id only, and pages through every one once`, async () => {

            const query = `sort=${sort}&direction=${direction}`;
            const shown = await list(family.redacted, 'persons', query);
            const living = shown.filter((person) => person.redacted === true);
            expect(living).to.have.length(family.living.size);
            // The living are empty: after every value, among the persons of none, in the order of their ids alone.
            const firstEmpty = shown.findIndex((person) => person.redacted === true || person[sort] === null);
            const empty = shown.slice(firstEmpty);
            expect(empty.every((person) => person.redacted === true || person[sort] === null)).to.be.true();
            // The database's order of ids (its collation's): a full key's persons of no death date follow the one who has.
            const byId = ids((await list(family.full, 'persons', 'sort=death_date')).filter((person) => ids(empty).includes(person.id as string)));
            expect(ids(empty)).to.equal(direction === 'asc' ? byId : byId.reverse());

            // Before them, the persons a full key sees with a value, in the same order.
            const valued = (await list(family.full, 'persons', query)).filter((person) => !family.living.has(person.id as string) && person[sort] !== null);
            expect(ids(shown.slice(0, firstEmpty))).to.equal(ids(valued));

            for (const limit of [1, 2, 3]) {
                expect(ids(await paged('persons', query, limit)), `limit ${limit}`).to.equal(ids(shown));
            }
        });
    }

    it('sorts events by a hidden field with those of living persons last, through cursors too', async () => {

        const shown = await list(family.redacted, 'events', 'sort=title');
        const firstRedacted = shown.findIndex((event) => event.redacted === true);
        expect(firstRedacted).to.be.above(0);
        expect(shown.slice(firstRedacted).every((event) => event.redacted === true)).to.be.true();
        expect(ids(await paged('events', 'sort=title', 2))).to.equal(ids(shown));
    });

    it('exports no hidden value of a living person', async () => {

        const csv = await family.redacted.inject('GET', '/api/v1/persons?format=csv');
        expect(csv.statusCode).to.equal(200);
        expect(csv.payload).to.not.contain(livingMarker);
        expect(csv.payload).to.not.contain('1990-07-14');
        expect(csv.payload).to.contain(deadMarker);
        expect((await family.redacted.inject('GET', `/api/v1/persons?format=csv&search=${livingMarker}`)).payload).to.not.contain('Living');
    });
});
