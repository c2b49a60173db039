import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { allResources, familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { anotherKey, expectRefusal, expectSuccess, injectWithKey, newPerson, personChanges } from '../requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** Query parameters that need an operation beyond read, and that operation. */
const queryOperations = [
    { query: 'search=Ada', operation: 'search' },
    { query: 'sort=first_name', operation: 'sort' },
    { query: 'direction=desc', operation: 'sort' },
    { query: 'filter[gender]=male', operation: 'filter' },
    { query: 'filter%5Blast_name%5D=Lovelace', operation: 'filter' }
];

describe('operationScope()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    /** A person of the family, created with its all-operations key. */
    async function personOf(family: FamilyFixture): Promise<string> {

        const response = await family.inject('POST', '/api/v1/persons', newPerson);
        expectSuccess(response, 201);
        return JSON.parse(response.payload).data.id;
    }

    it('lets a read-only key read and refuses its writes', async () => {

        const owner = await familyWithKey(server);
        const id = await personOf(owner);
        const readOnly = await anotherKey(server, owner.familyLongId, { resources: allResources, operations: ['read'] });

        expectSuccess(await injectWithKey(server, readOnly, 'GET', '/api/v1/persons'));
        expectSuccess(await injectWithKey(server, readOnly, 'GET', `/api/v1/persons/${id}`));
        expectSuccess(await injectWithKey(server, readOnly, 'GET', '/api/v1/all'));

        const writes = [
            { method: 'POST', url: '/api/v1/persons', payload: newPerson, operation: 'create' },
            { method: 'PATCH', url: `/api/v1/persons/${id}`, payload: personChanges, operation: 'update' },
            { method: 'DELETE', url: `/api/v1/persons/${id}`, payload: undefined, operation: 'delete' }
        ];

        for (const { method, url, payload, operation } of writes) {
            const refusal = expectRefusal(await injectWithKey(server, readOnly, method, url, payload), 403, 'operation_scope');
            expect(refusal.message).to.equal(`This API key lacks the ${operation} operation scope.`);
        }

        expectSuccess(await injectWithKey(server, readOnly, 'GET', `/api/v1/persons/${id}`));
    });

    it('grants create, update and delete each on its own', async () => {

        const owner = await familyWithKey(server);
        for (const granted of ['create', 'update', 'delete']) {
            const key = await anotherKey(server, owner.familyLongId, { resources: ['persons'], operations: ['read', granted] });
            const writes = [
                { operation: 'create', send: () => injectWithKey(server, key, 'POST', '/api/v1/persons', newPerson), success: 201 },
                { operation: 'update', send: async () => injectWithKey(server, key, 'PATCH', `/api/v1/persons/${await personOf(owner)}`, personChanges), success: 200 },
                { operation: 'delete', send: async () => injectWithKey(server, key, 'DELETE', `/api/v1/persons/${await personOf(owner)}`), success: 200 }
            ];

            for (const { operation, send, success } of writes) {
                const response = await send();
                if (operation === granted) {
                    expectSuccess(response, success);
                }
                else {
                    expectRefusal(response, 403, 'operation_scope');
                }
            }
        }
    });

    it('needs search, sort and filter for their query parameters', async () => {

        const owner = await familyWithKey(server);
        await personOf(owner);
        const readOnly = await anotherKey(server, owner.familyLongId, { resources: ['persons'], operations: ['read'] });
        for (const { query, operation } of queryOperations) {
            const refusal = expectRefusal(await injectWithKey(server, readOnly, 'GET', `/api/v1/persons?${query}`), 403, 'operation_scope');
            expect(refusal.message).to.equal(`This API key lacks the ${operation} operation scope.`);

            const granted = await anotherKey(server, owner.familyLongId, { resources: ['persons'], operations: ['read', operation] });
            expectSuccess(await injectWithKey(server, granted, 'GET', `/api/v1/persons?${query}`));
        }
    });

    it('names every operation a request lacks', async () => {

        const family = await familyWithKey(server, { operations: ['read', 'search'] });
        const refusal = expectRefusal(await family.inject('GET', '/api/v1/persons?search=Ada&sort=first_name&filter[gender]=male'), 403, 'operation_scope');
        expect(refusal.message).to.equal('This API key lacks the sort, filter operation scopes.');
    });

    it('needs search and sort on the aggregate too', async () => {

        const family = await familyWithKey(server, { operations: ['read'] });
        expectSuccess(await family.inject('GET', '/api/v1/all?limit=5'));
        expectRefusal(await family.inject('GET', '/api/v1/all?search=Ada'), 403, 'operation_scope');
        expectRefusal(await family.inject('GET', '/api/v1/all?sort=updated_at'), 403, 'operation_scope');
    });

    it('does not count paging and format parameters as operations', async () => {

        const family = await familyWithKey(server, { operations: ['read'] });
        expectSuccess(await family.inject('GET', '/api/v1/persons?limit=1&format=json'));
    });
});
