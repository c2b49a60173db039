import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { changeApiKeyScopes } from '../../../lib/accounts/api-keys';
import { ServiceError } from '../../../lib/errors';
import { allOperations, familyWithKey, testServer } from '../../helpers/server';
import { anotherKey, expectRefusal, expectSuccess, injectWithKey, newPerson, personChanges } from '../requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('operationScope() for keys from before write scopes', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    /** A family with a legacy key, and a person its all-operations key created. */
    async function legacyFamily() {

        const family = await familyWithKey(server, { predatesWriteScopes: true });
        const writer = await anotherKey(server, family.familyLongId, { resources: ['persons'], operations: allOperations });
        const created = await injectWithKey(server, writer, 'POST', '/api/v1/persons', newPerson);
        expectSuccess(created, 201);
        return { family, personId: JSON.parse(created.payload).data.id as string };
    }

    function expectLegacyRefusal(response: Parameters<typeof expectRefusal>[0]): void {

        const refusal = expectRefusal(response, 403, 'operation_scope');
        expect(refusal.message).to.include('predates write scopes');
    }

    it('reads, searches, sorts and filters', async () => {

        const { family, personId } = await legacyFamily();
        expectSuccess(await family.inject('GET', `/api/v1/persons/${personId}`));
        const response = await family.inject('GET', '/api/v1/persons?search=Ada&sort=last_name&direction=desc&filter[gender]=unknown');
        expectSuccess(response);
        expect(JSON.parse(response.payload).data.map((person: { id: string }) => person.id)).to.equal([personId]);
    });

    it('refuses every write, saying the key predates write scopes', async () => {

        const { family, personId } = await legacyFamily();
        expectLegacyRefusal(await family.inject('POST', '/api/v1/persons', newPerson));
        expectLegacyRefusal(await family.inject('PATCH', `/api/v1/persons/${personId}`, personChanges));
        expectLegacyRefusal(await family.inject('DELETE', `/api/v1/persons/${personId}`));
    });

    it('cannot be given a write scope', async () => {

        const { family } = await legacyFamily();
        await expect(changeApiKeyScopes(server.app.services.accounts, family.keyId, { operations: ['read', 'create'] })).to.reject(ServiceError, /predates write scopes/);
        expectLegacyRefusal(await family.inject('POST', '/api/v1/persons', newPerson));
    });

    it('refuses writes even when its database row has been given write scopes', async () => {

        const { family, personId } = await legacyFamily();
        const { models, authEpoch } = server.app.services;
        expectSuccess(await family.inject('GET', '/api/v1/persons?search=Ada'));
        // Dropping search shows the tampered row, not the cached key, is the one in force.
        await models.ApiKey.update({ operation_scopes: ['read', 'create', 'update', 'delete'] }, { where: { id: family.keyId } });
        await authEpoch.bump();

        expectRefusal(await family.inject('GET', '/api/v1/persons?search=Ada'), 403, 'operation_scope');
        expectLegacyRefusal(await family.inject('POST', '/api/v1/persons', newPerson));
        expectLegacyRefusal(await family.inject('PATCH', `/api/v1/persons/${personId}`, personChanges));
        expectLegacyRefusal(await family.inject('DELETE', `/api/v1/persons/${personId}`));
        expectSuccess(await family.inject('GET', `/api/v1/persons/${personId}`));
    });
});
