import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import Hapi, { type Server, type ServerRoute } from '@hapi/hapi';

import { gatewayPlugin, type GatewayOptions } from '../../gateway';
import { LastUsedTracker } from '../../gateway/last-used';
import { GatewayConfigStore } from '../../gateway/policies/gateway-file';
import { gatewayPolicies } from '../../gateway/policy-chain';
import { UsageMeter } from '../../gateway/usage-meter';
import { apiKeyScheme } from '../../gateway/verify-api-key';
import { deviceTokenScheme } from '../../gateway/verify-device-token';
import { editPolicyFile } from '../helpers/policy-files';
import { scratchDirectory, testServer } from '../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const declared = { gateway: { resource: 'persons', operation: 'read' } };
const handler = () => 'ok';

describe('assertRoutesFollowGroups()', () => {

    let source: Server;

    before(async () => {

        source = await testServer();
    });

    after(async () => {

        await source.stop();
    });

    /** The gateway's options, built from a deployment's services as lib/deployment.ts does, with gateway.yaml `file`. */
    function gatewayOptions(file = source.app.services.config.gatewayConfig): GatewayOptions {

        const services = source.app.services;
        const lastUsed = new LastUsedTracker(services.models, services.log);
        const parts = {
            policies: gatewayPolicies,
            authSchemes: {
                'api-key': apiKeyScheme({ models: services.models, pepper: services.accounts.pepper, authEpoch: services.authEpoch, lastUsed }),
                'device-token': deviceTokenScheme({ models: services.models, keys: services.accounts.deviceTokenKeys, authEpoch: services.authEpoch })
            }
        };
        return {
            configStore: GatewayConfigStore.open(file, services.log, parts, services.policyStore),
            parts,
            lastUsed,
            policyStore: services.policyStore,
            rateLimits: services.rateLimits,
            usageMeter: new UsageMeter(services)
        };
    }

    /** A bare server with the gateway and the given routes. */
    async function serverWith(routes: ServerRoute[], options = gatewayOptions()): Promise<Server> {

        const server = Hapi.server();
        await server.register({ plugin: gatewayPlugin, options });
        server.route(routes);
        return server;
    }

    it('refuses to start with a route under /api/v1 that has auth: false', async () => {

        const server = await serverWith([{ method: 'GET', path: '/api/v1/open', handler, options: { auth: false, plugins: declared } }]);
        await expect(server.initialize()).to.reject(/GET \/api\/v1\/open lies under route group "family-api" but does not use its auth/);
    });

    it('refuses to start with a route under /api/v1 that leaves its auth optional', async () => {

        const server = await serverWith([{
            method: 'GET',
            path: '/api/v1/optional',
            handler,
            options: { auth: { strategy: 'family-api', mode: 'optional' }, plugins: declared }
        }]);
        await expect(server.initialize()).to.reject(/GET \/api\/v1\/optional .* does not use its auth/);
    });

    it('refuses to start with a route under /api/v1 that does not declare its resource and operation', async () => {

        const server = await serverWith([
            { method: 'GET', path: '/api/v1/undeclared', handler, options: { auth: 'family-api' } },
            {
                method: 'POST',
                path: '/api/v1/half',
                handler,
                options: { auth: 'family-api', plugins: { gateway: { resource: 'persons' } } }
            }
        ]);

        const error = await expect(server.initialize()).to.reject(Error);
        expect(error.message).to.include('GET /api/v1/undeclared does not declare plugins.gateway.resource and .operation');
        expect(error.message).to.include('POST /api/v1/half does not declare plugins.gateway.operation');
    });

    it('refuses to start with a route under /messaging/v1 that does not declare its token scope', async () => {

        const server = await serverWith([{ method: 'GET', path: '/messaging/v1/unscoped', handler, options: { auth: 'messaging' } }]);
        const error = await expect(server.initialize()).to.reject(Error);
        expect(error.message).to.include('GET /messaging/v1/unscoped does not declare plugins.gateway.scope');
    });

    it('names every offending route at once', async () => {

        const server = await serverWith([
            { method: 'GET', path: '/api/v1', handler, options: { auth: false } },
            { method: 'DELETE', path: '/api/v1/x/{id}', handler, options: { auth: false, plugins: declared } }
        ]);

        const error = await expect(server.initialize()).to.reject(Error, /^Gateway configuration: /);
        expect(error.message).to.include('GET /api/v1 lies under');
        expect(error.message).to.include('GET /api/v1 does not declare');
        expect(error.message).to.include('DELETE /api/v1/x/{id} lies under');
    });

    it('starts when every route under /api/v1 follows its group, whatever lies outside it', async () => {

        const server = await serverWith([
            {
                method: 'GET',
                path: '/api/v1/persons',
                handler,
                options: { auth: 'family-api', plugins: declared }
            },
            { method: 'GET', path: '/api/v10/anything', handler, options: { auth: false } },
            { method: 'GET', path: '/healthz', handler, options: { auth: false } }
        ]);

        await server.initialize();
        await server.stop();
    });

    it('lets a GET at one of the group\'s public paths go without its auth, and nothing else there', async () => {

        const dir = scratchDirectory();
        Fs.copyFileSync(source.app.services.config.gatewayConfig, Path.join(dir, 'gateway.yaml'));
        editPolicyFile(dir, 'gateway.yaml', 'public_paths: [/api/v1/openapi.json]', 'public_paths: [/api/v1/reference]');
        const options = gatewayOptions(Path.join(dir, 'gateway.yaml'));

        const reading = await serverWith([{ method: 'GET', path: '/api/v1/reference', handler, options: { auth: false } }], options);
        await reading.initialize();
        await reading.stop();

        const writing = await serverWith([{ method: 'POST', path: '/api/v1/reference', handler, options: { auth: false } }], options);
        await expect(writing.initialize()).to.reject(/POST \/api\/v1\/reference lies under route group "family-api" but does not use its auth/);

        const below = await serverWith([{ method: 'GET', path: '/api/v1/reference/more', handler, options: { auth: false } }], options);
        await expect(below.initialize()).to.reject(/GET \/api\/v1\/reference\/more lies under/);
    });
});
