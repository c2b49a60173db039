import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { malformedQueryParameter, repeatedQueryParameter } from '../../lib/query-string';
import { familyWithKey, testServer, type FamilyFixture } from '../helpers/server';
import { createBody, dataOf, expectError } from '../plugins/records/fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('malformedQueryParameter()', () => {

    it('finds the first parameter that is not percent-encoded UTF-8', () => {

        expect(malformedQueryParameter('search=%ff%fe')).to.equal('search=%ff%fe');
        expect(malformedQueryParameter('limit=1&search=%zz&sort=%')).to.equal('search=%zz');
        expect(malformedQueryParameter('%')).to.equal('%');
        expect(malformedQueryParameter('search=%E2%82')).to.equal('search=%E2%82');          // a character cut short
        expect(malformedQueryParameter('search=%ED%A0%80')).to.equal('search=%ED%A0%80');    // a surrogate, which UTF-8 has not
    });

    it('takes every well-formed query', () => {

        for (const query of ['', 'search=%C3%A9mile', 'search=a+b', 'search=100%25', 'filter%5Bgender%5D=male', 'search=%F0%9F%98%80', 'a=&b']) {
            expect(malformedQueryParameter(query), query).to.be.undefined();
        }
    });
});

describe('repeatedQueryParameter()', () => {

    it('names a parameter whose values hapi gathered in an array', () => {

        expect(repeatedQueryParameter({ limit: ['1', '2'] })).to.equal('limit');
        expect(repeatedQueryParameter({ search: 'a', 'filter[gender]': ['male', 'female'] })).to.equal('filter[gender]');
        expect(repeatedQueryParameter({ search: 'a', limit: '2' })).to.be.undefined();
    });
});

describe('query strings of the family API', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        dataOf(await family.inject('POST', '/api/v1/persons', createBody('persons')), 201);
    });

    after(() => server.stop());

    it('refuses a parameter given more than once, saying so rather than that its values are of the wrong type', async () => {

        const cases: [string, string][] = [
            ['/api/v1/persons?limit=1&limit=2', '"limit" is given more than once'],
            ['/api/v1/persons?sort=first_name&sort=last_name', '"sort" is given more than once'],
            ['/api/v1/persons?filter[gender]=female&filter[gender]=male', '"filter[gender]" is given more than once'],
            ['/api/v1/persons?search=a&search=b', '"search" is given more than once'],
            ['/api/v1/persons?format=json&format=csv', '"format" is given more than once'],
            ['/api/v1/all?limit=1&limit=1', '"limit" is given more than once']
        ];
        for (const [url, message] of cases) {
            const response = await family.inject('GET', url);
            expectError(response, 400, 'invalid_request', message);
            expect(response.headers.ratelimit, url).to.exist();
        }

        // A query with no repeated parameter keeps joi's message.
        expectError(await family.inject('GET', '/api/v1/persons?limit=x'), 400, 'invalid_request', '"limit" must be a number');
    });

    it('refuses a query that is not percent-encoded UTF-8, which hapi would read as U+FFFD or as sent, naming the parameter', async () => {

        for (const [query, named] of [['search=%ff%fe', 'search=%ff%fe'], ['search=%zz', 'search=%zz'], ['limit=1&search=100%', 'search=100%'], ['%', '%'], ['filter[first_name]=%C3', 'filter[first_name]=%C3']]) {
            const response = await family.inject('GET', `/api/v1/persons?${query}`);
            expectError(response, 400, 'invalid_request', `The query parameter ${JSON.stringify(named)} is not percent-encoded UTF-8`);
            expect(response.headers.ratelimit, query).to.exist();
        }

        expectError(await family.inject('GET', '/api/v1/persons/per_AAAAAAAAAAAAAAAAAAAA?x=%ff'), 400, 'invalid_request', 'not percent-encoded UTF-8');
        expectError(await server.inject('/api/v1/openapi.json?x=%ff'), 400, 'invalid_request', 'not percent-encoded UTF-8');
    });

    it('still answers a bad key first, and searches what a well-formed query says', async () => {

        expectError(await server.inject('/api/v1/persons?search=%ff'), 401, 'invalid_key');
        expect(dataOf(await family.inject('GET', '/api/v1/persons?search=%73ample+a%20'))).to.have.length(1);
        expect(dataOf(await family.inject('GET', '/api/v1/persons?search=100%25'))).to.equal([]);
    });
});
