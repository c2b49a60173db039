import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { suspendFamily } from '../../../lib/accounts/families';
import { resourceNames } from '../../../models/resources';
import { familyWithKey, testServerWithFamily, type FamilyFixture } from '../../helpers/server';
import { dataOf, expectError } from '../records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const json = /^application\/json; charset=utf-8$/;

describe('export formats: refusals and errors', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        ({ server, family } = await testServerWithFamily());
    });

    after(() => server.stop());

    it('refuses an unknown format, naming the formats there are', async () => {

        expectError(await family.inject('GET', '/api/v1/persons?format=xml'), 400, 'invalid_request', '[json, csv, html, pdf, gedcom]');
        expectError(await family.inject('GET', '/api/v1/all?format=xlsx'), 400, 'invalid_request', '[json, csv, html, pdf, gedcom]');
        expectError(await family.inject('GET', '/api/v1/persons?format=CSV'), 400, 'invalid_request', 'format');
    });

    it('offers GEDCOM only for persons, trees and events', async () => {

        for (const name of resourceNames) {
            const response = await family.inject('GET', `/api/v1/${name}?format=gedcom`);
            if (['persons', 'trees', 'events'].includes(name)) {
                expect(response.statusCode, name).to.equal(200);
            }
            else {
                expectError(response, 400, 'invalid_request', '"format" must be one of [json, csv, html, pdf]');
            }
        }
    });

    it('refuses a cursor with an export: an export is the whole list', async () => {

        const page = await family.inject('GET', '/api/v1/persons?limit=1');
        const cursor = JSON.parse(page.payload).meta.next_cursor ?? 'abc';
        expectError(await family.inject('GET', `/api/v1/persons?format=csv&cursor=${cursor}`), 400, 'invalid_request', 'cursor');
        expectError(await family.inject('GET', '/api/v1/persons?format=pdf&cursor=abc'), 400, 'invalid_request', 'cursor');
    });

    it('lets `limit` cap an export beyond the page size, and keeps the page size for JSON', async () => {

        expect((await family.inject('GET', '/api/v1/persons?format=csv&limit=5000')).statusCode).to.equal(200);
        expect((await family.inject('GET', '/api/v1/all?format=csv&limit=5000')).statusCode).to.equal(200);
        expectError(await family.inject('GET', '/api/v1/persons?format=json&limit=101'), 400, 'invalid_request', 'limit');
        expectError(await family.inject('GET', '/api/v1/persons?limit=101'), 400, 'invalid_request', 'limit');
        expectError(await family.inject('GET', '/api/v1/all?limit=1001'), 400, 'invalid_request', 'limit');
        expectError(await family.inject('GET', '/api/v1/persons?format=csv&limit=0'), 400, 'invalid_request', 'limit');
    });

    describe('errors stay JSON whatever format was asked', () => {

        it('a missing operation scope', async () => {

            const readOnly = await familyWithKey(server, { operations: ['read'] });
            for (const format of ['csv', 'html', 'pdf', 'gedcom']) {
                const response = await readOnly.inject('GET', `/api/v1/persons?format=${format}&search=anna`);
                expectError(response, 403, 'operation_scope');
                expect(response.headers['content-type']).to.match(json);
                expect(response.headers['content-disposition']).to.not.exist();
            }

            expectError(await readOnly.inject('GET', '/api/v1/all?format=csv&sort=updated_at'), 403, 'operation_scope');
        });

        it('a missing resource scope', async () => {

            const personsOnly = await familyWithKey(server, { keyResources: ['persons'] });
            const response = await personsOnly.inject('GET', '/api/v1/finances?format=pdf');
            expectError(response, 403, 'resource_scope');
            expect(response.headers['content-type']).to.match(json);
        });

        it('an invalid key, a bad filter and a suspended family', async () => {

            const response = await server.inject({ method: 'GET', url: '/api/v1/persons?format=csv', headers: { authorization: 'Bearer frk_nope' } });
            expectError(response, 401, 'invalid_key');
            expect(response.headers['content-type']).to.match(json);

            expectError(await family.inject('GET', '/api/v1/persons?format=html&filter[notes]=x'), 400, 'invalid_request', 'filter[notes]');
            expectError(await family.inject('GET', '/api/v1/persons?format=gedcom&sort=height'), 400, 'invalid_request', 'sort');

            const suspended = await familyWithKey(server);
            await suspendFamily(server.app.services.accounts, suspended.familyLongId, 'test', 'test');
            expectError(await suspended.inject('GET', '/api/v1/persons?format=csv'), 403, 'family_suspended');
        });
    });

    it('keeps JSON lists as they were when format=json is asked', async () => {

        dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Ada', last_name: 'Berg' }), 201);
        const explicit = await family.inject('GET', '/api/v1/persons?format=json');
        expect(explicit.headers['content-type']).to.match(json);
        expect(JSON.parse(explicit.payload).meta).to.equal({ resource: 'persons', count: 1, next_cursor: null });
    });
});
