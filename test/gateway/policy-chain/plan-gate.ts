import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { disableApi } from '../../../lib/accounts/families';
import { familyWithKey, testServer } from '../../helpers/server';
import { everyRouteOf, expectRefusal, expectSuccess } from '../requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('planGate()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    const everyRoute = [...everyRouteOf('persons'), { method: 'GET', url: '/api/v1/all' }];

    it('refuses every route to a Lite family with plan_not_eligible, naming the plan that allows it', async () => {

        const family = await familyWithKey(server, { plan: 'lite' });
        for (const { method, url, payload } of everyRoute) {
            const refusal = expectRefusal(await family.inject(method, url, payload), 403, 'plan_not_eligible');
            expect(refusal.message).to.equal('The Lite plan does not include API access; the Family plan does.');
        }
    });

    it('refuses every route to a family that has not enabled API access with api_not_enabled', async () => {

        const family = await familyWithKey(server);
        await disableApi(server.app.services.accounts, family.familyLongId);
        for (const { method, url, payload } of everyRoute) {
            expectRefusal(await family.inject(method, url, payload), 403, 'api_not_enabled');
        }
    });

    it('admits every plan that includes API access', async () => {

        for (const plan of ['family', 'max', 'lifetime']) {
            const family = await familyWithKey(server, { plan });
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
        }
    });
});
