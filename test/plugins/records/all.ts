import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { enableApi } from '../../../lib/accounts/families';
import { fieldNamesWhere, resourceNames, resources, type ResourceName } from '../../../models/resources';
import { familyWithKey, testServer } from '../../helpers/server';
import { bodyOf, createBody, creatableResources, dataOf, insertRecord, nextMillisecond, type Body } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('GET /api/v1/all', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    const idsOf = (rows: Body[]) => rows.map((row) => row.id);

    it('answers every resource of the key, each as its list shows it', async () => {

        const family = await familyWithKey(server);
        const expected: Record<string, Body[]> = {};
        for (const name of resourceNames) {
            const id = await insertRecord(server, family.familyLongId, name);
            expected[name] = [dataOf(await family.inject('GET', `/api/v1/${name}/${id}`))];
        }

        const response = await family.inject('GET', '/api/v1/all');
        expect(response.statusCode).to.equal(200);
        const { data, meta } = bodyOf(response);
        expect(Object.keys(data)).to.equal([...resourceNames]);
        expect(data).to.equal(expected);
        expect(meta).to.equal({ resource: 'all', counts: Object.fromEntries(resourceNames.map((name) => [name, 1])), truncated: [] });
    });

    it('answers only the resources in the key\'s scope', async () => {

        const family = await familyWithKey(server, { keyResources: ['persons', 'trees'] });
        await insertRecord(server, family.familyLongId, 'persons');
        await insertRecord(server, family.familyLongId, 'events');

        const { data, meta } = bodyOf(await family.inject('GET', '/api/v1/all'));
        expect(Object.keys(data)).to.equal(['trees', 'persons']);
        expect(data.persons).to.have.length(1);
        expect(meta.counts).to.equal({ trees: 0, persons: 1 });
    });

    it('leaves out resources the family stopped exposing', async () => {

        const family = await familyWithKey(server);
        await enableApi(server.app.services.accounts, family.familyLongId, ['persons', 'events']);

        expect(Object.keys(dataOf(await family.inject('GET', '/api/v1/all')))).to.equal(['persons', 'events']);
    });

    it('applies the search to every resource', async () => {

        const family = await familyWithKey(server);
        const matches: Record<string, unknown[]> = {};
        for (const name of creatableResources) {
            const matching = await family.inject('POST', `/api/v1/${name}`, { ...createBody(name), ...searchableText(name, 'Gold Needle') });
            await family.inject('POST', `/api/v1/${name}`, createBody(name, { variant: 1 }));
            matches[name] = [dataOf(matching, 201).id];
        }

        const galleryItem = await insertRecord(server, family.familyLongId, 'gallery', { title: 'the golden NEEDLE' });
        await insertRecord(server, family.familyLongId, 'documents', { title: 'Silver needle' });

        const data = dataOf(await family.inject('GET', '/api/v1/all?search=needle%20gold'));
        expect(Object.fromEntries(Object.entries(data).map(([name, rows]) => [name, idsOf(rows as Body[])]))).to.equal({ ...matches, gallery: [galleryItem], documents: [] });
    });

    it('limits the records per resource and names the resources it cut short', async () => {

        const family = await familyWithKey(server);
        for (let index = 0; index < 3; ++index) {
            await family.inject('POST', '/api/v1/persons', createBody('persons', { variant: index }));
            await nextMillisecond();
        }

        await family.inject('POST', '/api/v1/trees', createBody('trees'));
        const persons = dataOf(await family.inject('GET', '/api/v1/persons'));

        const cut = bodyOf(await family.inject('GET', '/api/v1/all?limit=2'));
        expect(cut.data.persons).to.equal(persons.slice(0, 2));
        expect(cut.data.trees).to.have.length(1);
        expect(cut.meta.counts).to.include({ persons: 2, trees: 1, events: 0 });
        expect(cut.meta.truncated).to.equal(['persons']);

        const whole = bodyOf(await family.inject('GET', '/api/v1/all?limit=3'));
        expect(whole.data.persons).to.equal(persons);
        expect(whole.meta.truncated).to.equal([]);

        const newest = bodyOf(await family.inject('GET', '/api/v1/all?limit=1&sort=created_at&direction=desc'));
        expect(newest.data.persons).to.equal([persons[2]]);
        expect(newest.meta.truncated).to.equal(['persons']);
    });
});

/** The text in the first required searchable field of the resource. */
function searchableText(name: ResourceName, text: string): Body {

    return { [fieldNamesWhere(resources[name], (field) => field.searchable && field.required)[0]]: text };
}
