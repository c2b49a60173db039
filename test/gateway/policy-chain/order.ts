import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';

import { disableApi } from '../../../lib/accounts/families';
import { projectRoot } from '../../../lib/config';
import { familyWithKey, scratchDirectory, testServer } from '../../helpers/server';
import { expectRefusal, expectSuccess, newPerson, suspendForUnusualTraffic } from '../requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const shippedChain = `    policies:
      - name: plan-gate
      - name: family-suspension
      - name: rate-limit
      - name: resource-scope
      - name: operation-scope
`;

/** A copy of gateway.yaml with its policy chain replaced. */
function gatewayConfigWithChain(chain: string): string {

    const shipped = Fs.readFileSync(Path.join(projectRoot, 'gateway', 'gateway.yaml'), 'utf8');
    if (!shipped.includes(shippedChain)) {
        throw new Error('gateway.yaml no longer lists the chain this test expects: update the test');
    }

    const file = Path.join(scratchDirectory(), 'gateway.yaml');
    Fs.writeFileSync(file, shipped.replace(shippedChain, chain));
    return file;
}

/** A server whose gateway.yaml has another chain. */
function serverWithChain(chain: string): Promise<Server> {

    return testServer({ env: { GATEWAY_CONFIG: gatewayConfigWithChain(chain) } });
}

describe('the policy chain of gateway.yaml', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    it('tells a suspended Lite family its plan is not eligible before that it is suspended', async () => {

        const family = await familyWithKey(server, { plan: 'lite' });
        await suspendForUnusualTraffic(server, family.familyLongId);
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'plan_not_eligible');
    });

    it('tells a suspended family without API access that it is not enabled', async () => {

        const family = await familyWithKey(server);
        await disableApi(server.app.services.accounts, family.familyLongId);
        await suspendForUnusualTraffic(server, family.familyLongId);
        expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'api_not_enabled');
    });

    it('reports a suspension before the key\'s scopes', async () => {

        const family = await familyWithKey(server, { keyResources: ['persons'], operations: ['read'] });
        await suspendForUnusualTraffic(server, family.familyLongId);
        expectRefusal(await family.inject('POST', '/api/v1/events', { title: 'Reunion' }), 403, 'family_suspended');
    });

    it('refuses by policy before it reads the body: a bad body cannot turn a refusal into a 400', async () => {

        const malformedJson = '{"first_name": ';
        const readOnly = await familyWithKey(server, { operations: ['read'] });
        expectRefusal(await readOnly.inject('POST', '/api/v1/persons', malformedJson, { 'content-type': 'application/json' }), 403, 'operation_scope');

        const suspended = await familyWithKey(server);
        await suspendForUnusualTraffic(server, suspended.familyLongId);
        expectRefusal(await suspended.inject('POST', '/api/v1/persons', malformedJson, { 'content-type': 'application/json' }), 403, 'family_suspended');
        expectRefusal(await suspended.inject('PATCH', '/api/v1/persons/per_unknown', 'x'.repeat(2 * 1024 * 1024), { 'content-type': 'application/json' }), 403, 'family_suspended');
    });

    it('reports the resource scope before the operation scope', async () => {

        const family = await familyWithKey(server, { keyResources: ['persons'], operations: ['read'] });
        expectRefusal(await family.inject('POST', '/api/v1/events', { title: 'Reunion' }), 403, 'resource_scope');
        expectRefusal(await family.inject('POST', '/api/v1/persons', newPerson), 403, 'operation_scope');
    });

    it('runs the policies in the order gateway.yaml lists them', async () => {

        const reordered = await serverWithChain(shippedChain.replace('      - name: plan-gate\n      - name: family-suspension\n', '      - name: family-suspension\n      - name: plan-gate\n'));
        try {
            const family = await familyWithKey(reordered, { plan: 'lite' });
            await suspendForUnusualTraffic(reordered, family.familyLongId);
            expectRefusal(await family.inject('GET', '/api/v1/persons'), 403, 'family_suspended');
        }
        finally {
            await reordered.stop();
        }
    });

    it('skips a policy gateway.yaml disables', async () => {

        const withoutSuspension = await serverWithChain(shippedChain.replace('      - name: family-suspension\n', '      - name: family-suspension\n        enabled: false\n'));
        try {
            const family = await familyWithKey(withoutSuspension);
            await suspendForUnusualTraffic(withoutSuspension, family.familyLongId);
            expectSuccess(await family.inject('GET', '/api/v1/persons'));
        }
        finally {
            await withoutSuspension.stop();
        }
    });
});
