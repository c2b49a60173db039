import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { unsuspendFamily } from '../../../lib/accounts/families';
import { allResources, familyWithKey, testServer } from '../../helpers/server';
import { anotherKey, everyRouteOf, expectRefusal, expectSuccess, injectWithKey, suspendForUnusualTraffic } from '../requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('familySuspension()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    it('refuses every route to a suspended family with family_suspended', async () => {

        const family = await familyWithKey(server);
        await suspendForUnusualTraffic(server, family.familyLongId);
        for (const { method, url, payload } of [...everyRouteOf('persons'), { method: 'GET', url: '/api/v1/all' }]) {
            const refusal = expectRefusal(await family.inject(method, url, payload), 403, 'family_suspended');
            expect(refusal.message).to.include('suspended');
        }
    });

    it('stops every key of the family and no other family', async () => {

        const family = await familyWithKey(server);
        const secondKey = await anotherKey(server, family.familyLongId, { resources: allResources });
        const otherFamily = await familyWithKey(server);
        await suspendForUnusualTraffic(server, family.familyLongId);

        expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'family_suspended');
        expectRefusal(await injectWithKey(server, secondKey, 'GET', '/api/v1/persons'), 403, 'family_suspended');
        expectSuccess(await otherFamily.inject('GET', '/api/v1/persons'));
    });

    it('serves every key of the family again once unsuspended', async () => {

        const family = await familyWithKey(server);
        const secondKey = await anotherKey(server, family.familyLongId, { resources: allResources });
        await suspendForUnusualTraffic(server, family.familyLongId);
        await unsuspendFamily(server.app.services.accounts, family.familyLongId);

        expectSuccess(await family.inject('GET', '/api/v1/persons'));
        expectSuccess(await injectWithKey(server, secondKey, 'GET', '/api/v1/persons'));
    });
});
