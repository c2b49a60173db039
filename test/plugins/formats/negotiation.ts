import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { resourceNames } from '../../../models/resources';
import { testServerWithFamily, type FamilyFixture } from '../../helpers/server';
import { createBody, dataOf, expectError } from '../records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const contentTypes: Readonly<Record<string, string>> = {
    'application/json': 'application/json; charset=utf-8',
    'text/csv': 'text/csv; charset=utf-8',
    'text/html': 'text/html; charset=utf-8',
    'application/pdf': 'application/pdf',
    'text/vnd.familysearch.gedcom': 'text/vnd.familysearch.gedcom; charset=utf-8'
};

describe('export formats by the Accept header', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        ({ server, family } = await testServerWithFamily());
        dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201);
    });

    after(() => server.stop());

    const list = (path: string, accept?: string) => family.inject('GET', path, undefined, accept === undefined ? {} : { accept });

    it('answers a list in the format Accept names, for each of them, saying that the answer varies by Accept', async () => {

        for (const path of ['/api/v1/persons', '/api/v1/all']) {
            for (const [mediaType, contentType] of Object.entries(contentTypes)) {
                const response = await list(path, mediaType);
                expect(response.statusCode, `${path} ${mediaType}: ${response.payload.slice(0, 200)}`).to.equal(200);
                expect(response.headers['content-type'], `${path} ${mediaType}`).to.equal(contentType);
                expect(response.headers.vary, `${path} ${mediaType}`).to.contain('accept');
            }
        }

        const csv = await list('/api/v1/persons', 'text/csv');
        expect(csv.headers['content-disposition']).to.match(/^attachment; filename=".+\.csv"/);
        expect(csv.payload).to.equal((await list('/api/v1/persons?format=csv')).payload);
    });

    it('weighs the ranges by their q-values; none, or */*, is JSON', async () => {

        const cases: [string | undefined, string][] = [
            [undefined, 'application/json'],
            ['*/*', 'application/json'],
            ['application/*', 'application/json'],
            ['text/*', 'text/csv'],
            ['application/json;q=0.5, text/csv', 'text/csv'],
            ['text/csv;q=0.2, text/html;q=0.9, */*;q=0.1', 'text/html'],
            ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'],
            ['application/json;q=0, */*', 'text/csv']
        ];
        for (const [accept, mediaType] of cases) {
            const response = await list('/api/v1/persons', accept);
            expect(response.statusCode, String(accept)).to.equal(200);
            expect(response.headers['content-type'], String(accept)).to.equal(contentTypes[mediaType]);
        }
    });

    it('lets format= win over Accept, which it does not read then', async () => {

        const json = await list('/api/v1/persons?format=json', 'text/csv');
        expect(json.statusCode).to.equal(200);
        expect(json.headers['content-type']).to.equal(contentTypes['application/json']);
        expect((await list('/api/v1/persons?format=pdf', 'text/csv')).headers['content-type']).to.equal('application/pdf');
        expect((await list('/api/v1/persons?format=csv', 'application/xml')).statusCode).to.equal(200);
    });

    it('applies an export\'s rules to the format Accept picks: no cursor, a limit beyond the page size', async () => {

        expectError(await list('/api/v1/persons?cursor=abc', 'text/csv'), 400, 'invalid_request', 'cursor');
        expect((await list('/api/v1/persons?limit=5000', 'text/csv')).statusCode).to.equal(200);
        expectError(await list('/api/v1/persons?limit=5000', 'application/json'), 400, 'invalid_request', 'limit');
    });

    it('answers 406 not_acceptable, naming the formats it has, when Accept names none of them', async () => {

        for (const name of resourceNames) {
            const response = await list(`/api/v1/${name}`, 'application/xml');
            expectError(response, 406, 'not_acceptable', 'application/json (format=json), text/csv (format=csv), text/html (format=html), application/pdf (format=pdf)');
            expect(response.headers.vary).to.contain('Accept');
            expect(response.payload.includes('text/vnd.familysearch.gedcom (format=gedcom)'), name).to.equal(['persons', 'trees', 'events'].includes(name));
        }

        // GEDCOM is a format of some lists only.
        expectError(await list('/api/v1/gallery', 'text/vnd.familysearch.gedcom'), 406, 'not_acceptable', 'format=');
        expectError(await list('/api/v1/all', 'image/*, */*;q=0'), 406, 'not_acceptable', 'text/vnd.familysearch.gedcom (format=gedcom)');
        expectError(await list('/api/v1/persons', 'application/json;q=0, text/*;q=0, application/pdf;q=0'), 406, 'not_acceptable', 'format=');
    });

    it('checks the key before the format: a request without one is 401 whatever it accepts', async () => {

        const response = await server.inject({ url: '/api/v1/persons', headers: { accept: 'application/xml' } });
        expectError(response, 401, 'invalid_key', '');
    });

    it('answers a record, a create and the other routes in JSON whatever Accept says, as before', async () => {

        const person = dataOf(await list('/api/v1/persons'))[0];
        const read = await family.inject('GET', `/api/v1/persons/${person.id}`, undefined, { accept: 'text/csv' });
        expect(read.statusCode).to.equal(200);
        expect(read.headers['content-type']).to.equal(contentTypes['application/json']);
    });
});
