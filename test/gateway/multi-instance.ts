import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';

import { changeApiKeyScopes, revokeApiKey } from '../../lib/accounts/api-keys';
import { suspendFamily, unsuspendFamily } from '../../lib/accounts/families';
import { familyWithKey, testServer, testRedisUrl, testVariant } from '../helpers/server';
import { expectRefusal, expectSuccess, injectWithKey, newPerson } from './requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

// On SQLite the instances share the database file and the auth-epoch marker file;
// on PostgreSQL with Redis they share the database and the epoch in Redis, as in production.
describe(`two instances (${testVariant}${testRedisUrl ? ' + redis' : ''})`, () => {

    let a: Server;
    let b: Server;

    before(async () => {

        a = await testServer();
        b = await testServer({ shareWith: a });
    });

    after(async () => {

        await b.stop();
        await a.stop();
    });

    /** A family created through A whose key B has verified and cached. */
    async function familyCachedOnB() {

        const family = await familyWithKey(a);
        const onB = (url = '/api/v1/persons') => injectWithKey(b, family.key, 'GET', url);
        expectSuccess(await onB());
        expectSuccess(await onB());
        return { family, onB };
    }

    it('refuses on B a key revoked through A, on the very next request', async () => {

        const { family, onB } = await familyCachedOnB();
        await revokeApiKey(a.app.services.accounts, family.keyId, 'test');
        expectRefusal(await onB(), 401, 'invalid_key');
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 401, 'invalid_key');
    });

    it('refuses on B a family suspended through A at once, and serves it again once unsuspended', async () => {

        const { family, onB } = await familyCachedOnB();
        await suspendFamily(a.app.services.accounts, family.familyLongId, 'Unusual traffic', 'test');
        expectRefusal(await onB(), 403, 'family_suspended');

        await unsuspendFamily(a.app.services.accounts, family.familyLongId);
        expectSuccess(await onB());
    });

    it('applies on B a key\'s scopes narrowed through A at once', async () => {

        const { family, onB } = await familyCachedOnB();
        expectSuccess(await onB('/api/v1/events'));
        await changeApiKeyScopes(a.app.services.accounts, family.keyId, { resources: ['persons'] });
        expectRefusal(await onB('/api/v1/events'), 403, 'resource_scope');
        expectSuccess(await onB());
    });

    it('serves on A records written through B', async () => {

        const family = await familyWithKey(a);
        const created = await injectWithKey(b, family.key, 'POST', '/api/v1/persons', newPerson);
        expectSuccess(created, 201);
        expectSuccess(await family.inject('GET', `/api/v1/persons/${JSON.parse(created.payload).data.id}`));
    });
});
