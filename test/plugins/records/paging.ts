import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { bodyOf, dataOf, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const total = 60;

describe('records API v1: cursor paging', () => {

    let server: Server;
    let family: FamilyFixture;
    let baseUrl: string;

    before(async () => {

        server = await testServer();
        baseUrl = server.app.services.config.publicBaseUrl;
        family = await familyWithKey(server);
        for (let index = 0; index < total; ++index) {
            // One person in three has a birth date, with repeats, so paging crosses ties and empty values.
            const birthDate = index % 3 === 0 ? `${1900 + index % 4}` : undefined;
            const gender = ['female', 'male', 'other'][index % 3];
            const response = await family.inject('POST', '/api/v1/persons', { first_name: `person ${String(index).padStart(2, '0')}`, last_name: 'Paged', gender, ...(birthDate ? { birth_date: birthDate } : {}) });
            expect(response.statusCode).to.equal(201);
        }
    });

    after(() => server.stop());

    const idsOf = (rows: Body[]) => rows.map((row) => row.id as string);

    /**
     * Follows the `Link: rel="next"` of every page, checking that it carries the
     * query and the page's `meta.next_cursor`; returns the ids in the order met.
     */
    async function pageThrough(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {

        const ids: string[] = [];
        let url: string | null = `/api/v1/persons?${query}&limit=${limit}`;
        let pages = 0;
        while (url) {
            const response = await family.inject('GET', url);
            const { data, meta } = bodyOf(response);
            expect(response.statusCode).to.equal(200);
            expect(meta.count).to.equal(data.length);
            ids.push(...idsOf(data));
            expect(++pages, 'a cursor that does not advance').to.be.at.most(total);

            if (meta.next_cursor === null) {
                expect(response.headers.link, 'no Link on the last page').to.not.exist();
                url = null;
                continue;
            }

            expect(data).to.have.length(limit);
            const link = /^<(.+)>; rel="next"$/.exec(response.headers.link as string);
            expect(link, `Link header: ${response.headers.link}`).to.exist();
            const next = new URL(link![1]);
            expect(`${next.origin}${next.pathname}`).to.equal(`${baseUrl}/api/v1/persons`);
            expect(next.searchParams.get('cursor')).to.equal(meta.next_cursor);
            url = `${next.pathname}${next.search}`;
            next.searchParams.delete('cursor');
            expect([...next.searchParams].sort()).to.equal([...new URLSearchParams(`${query}&limit=${limit}`)].sort());
        }

        return { ids, pages };
    }

    const orderings = [
        '', 'direction=desc',
        'sort=birth_date', 'sort=birth_date&direction=desc',
        'sort=first_name&direction=desc', 'sort=gender', 'sort=updated_at&direction=desc'
    ];

    for (const query of orderings) {

        it(`visits each of ${total} records exactly once, in order, with limit 7 and ${query || 'the default order'}`, async () => {

            const whole = idsOf(dataOf(await family.inject('GET', `/api/v1/persons?${query}&limit=100`)));
            expect(whole).to.have.length(total);

            const { ids, pages } = await pageThrough(query, 7);
            expect(ids).to.equal(whole);
            expect(new Set(ids).size).to.equal(total);
            expect(pages).to.equal(Math.ceil(total / 7));
        });
    }

    it('keeps the filter and search of the query in every page', async () => {

        const query = 'filter[gender]=female&search=person&sort=birth_date';
        const whole = dataOf(await family.inject('GET', `/api/v1/persons?${query}&limit=100`));
        expect(whole).to.have.length(total / 3);
        expect(whole.every((row: Body) => row.gender === 'female')).to.be.true();

        const { ids } = await pageThrough(query, 7);
        expect(ids).to.equal(idsOf(whole));
    });

    it('ends on a full last page without an empty page after it', async () => {

        const { ids, pages } = await pageThrough('', 6);
        expect(ids).to.have.length(total);
        expect(pages).to.equal(total / 6);
    });

    it('answers the whole list on one page with no cursor when it fits', async () => {

        const response = await family.inject('GET', '/api/v1/persons?limit=100');
        expect(bodyOf(response).meta).to.equal({ resource: 'persons', count: total, next_cursor: null });
        expect(response.headers.link).to.not.exist();
    });

    it('pages 25 records at a time by default', async () => {

        const { data, meta } = bodyOf(await family.inject('GET', '/api/v1/persons'));
        expect(data).to.have.length(25);
        expect(meta.next_cursor).to.be.a.string();
    });

    it('continues after the cursor even when the record it names was deleted', async () => {

        const own = await familyWithKey(server);
        for (let index = 0; index < 5; ++index) {
            await own.inject('POST', '/api/v1/trees', { name: `tree ${index}` });
        }

        const whole = idsOf(dataOf(await own.inject('GET', '/api/v1/trees?sort=name')));
        const first = bodyOf(await own.inject('GET', '/api/v1/trees?sort=name&limit=2'));
        expect(idsOf(first.data)).to.equal(whole.slice(0, 2));
        expect((await own.inject('DELETE', `/api/v1/trees/${whole[1]}`)).statusCode).to.equal(200);

        const rest = dataOf(await own.inject('GET', `/api/v1/trees?sort=name&limit=10&cursor=${first.meta.next_cursor}`));
        expect(idsOf(rest)).to.equal(whole.slice(2));
    });

    it('continues after a sort value of the longest text, whatever its characters', async () => {

        // 😀 is 4 bytes of UTF-8 in the cursor's JSON, U+0001 six (`\u0001`): a cursor after either is longer than one after ASCII.
        const own = await familyWithKey(server);
        const names = ['😀'.repeat(200), '\u0001'.repeat(200), '"'.repeat(200)];
        for (const name of names) {
            expect((await own.inject('POST', '/api/v1/trees', { name })).statusCode).to.equal(201);
        }

        const whole = idsOf(dataOf(await own.inject('GET', '/api/v1/trees?sort=name&direction=desc')));
        const visited: string[] = [];
        let cursor = '';
        do {
            const response = await own.inject('GET', `/api/v1/trees?sort=name&direction=desc&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
            expect(response.statusCode, response.payload).to.equal(200);
            const { data, meta } = bodyOf(response);
            visited.push(...idsOf(data));
            cursor = meta.next_cursor;
        } while (cursor);

        expect(visited).to.equal(whole);
        expect(visited).to.have.length(names.length);
    });
});
