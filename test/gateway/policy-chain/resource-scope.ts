import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { enableApi } from '../../../lib/accounts/families';
import { allResources, familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { everyRouteOf, expectRefusal, expectSuccess, newPerson } from '../requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('resourceScope()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    const expose = (familyLongId: string, resources: string[]) => enableApi(server.app.services.accounts, familyLongId, resources);

    it('refuses every route of a resource outside the key\'s scope', async () => {

        const family = await familyWithKey(server, { keyResources: ['persons'] });
        for (const { method, url, payload } of everyRouteOf('events')) {
            const refusal = expectRefusal(await family.inject(method, url, payload), 403, 'resource_scope');
            expect(refusal.message).to.equal('This API key has no access to events.');
        }

        expectSuccess(await family.inject('GET', '/api/v1/persons'));
    });

    it('narrows a key to the resources its family still exposes', async () => {

        const family = await familyWithKey(server, { resources: ['persons', 'trees'] });
        expectSuccess(await family.inject('GET', '/api/v1/trees'));

        await expose(family.familyLongId, ['persons']);
        expectRefusal(await family.inject('GET', '/api/v1/trees'), 403, 'resource_scope');
        expectSuccess(await family.inject('GET', '/api/v1/persons'));

        await expose(family.familyLongId, ['persons', 'trees', 'events']);
        expectSuccess(await family.inject('GET', '/api/v1/trees'));
        expectRefusal(await family.inject('GET', '/api/v1/events'), 403, 'resource_scope');
    });

    describe('the aggregate /api/v1/all', () => {

        /** The resources /api/v1/all answers with for the family's key. */
        async function resourcesOfAll(family: FamilyFixture): Promise<string[]> {

            const response = await family.inject('GET', '/api/v1/all');
            expectSuccess(response);
            return Object.keys(JSON.parse(response.payload).data).sort();
        }

        it('returns every resource when the key reaches them all', async () => {

            const family = await familyWithKey(server);
            expect(await resourcesOfAll(family)).to.equal([...allResources].sort());
        });

        it('returns exactly the resources in the key\'s scope, within what the family exposes', async () => {

            const family = await familyWithKey(server, { resources: ['persons', 'events', 'trees'], keyResources: ['persons', 'events'] });
            expectSuccess(await family.inject('POST', '/api/v1/persons', newPerson), 201);
            expectSuccess(await family.inject('POST', '/api/v1/events', { title: 'Reunion' }), 201);

            const response = await family.inject('GET', '/api/v1/all');
            expectSuccess(response);
            const { data } = JSON.parse(response.payload);
            expect(Object.keys(data).sort()).to.equal(['events', 'persons']);
            expect(data.persons).to.have.length(1);
            expect(data.events).to.have.length(1);

            await expose(family.familyLongId, ['persons', 'trees']);
            expect(await resourcesOfAll(family)).to.equal(['persons']);
        });

        it('refuses a key that reaches no resource any more', async () => {

            const family = await familyWithKey(server, { resources: ['persons', 'trees'], keyResources: ['persons'] });
            await expose(family.familyLongId, ['trees']);
            expectRefusal(await family.inject('GET', '/api/v1/all'), 403, 'resource_scope');
        });
    });
});
