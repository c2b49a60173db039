import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import Boom from '@hapi/boom';
import Hapi, { type Server, type ServerRoute } from '@hapi/hapi';

import { PolicyError } from '../../gateway/policies/data-file';
import { assertRoutesFollowGroups } from '../../gateway/route-groups';
import { projectRoot } from '../../lib/config';
import { scratchDirectory, testServer } from '../helpers/server';
import { loadGateway } from '../helpers/policy-files';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const shippedGatewayYaml = Path.join(projectRoot, 'gateway', 'gateway.yaml');
const handler = () => 'ok';

/** A copy of the shipped gateway.yaml with `from` replaced by `to`; fails when `from` is not there. */
function editedGatewayYaml(from: string, to: string): string {

    const text = Fs.readFileSync(shippedGatewayYaml, 'utf8');
    expect(text).to.include(from);
    const file = Path.join(scratchDirectory(), 'gateway.yaml');
    Fs.writeFileSync(file, text.replace(from, to));
    return file;
}

describe('gateway.yaml public_paths', () => {

    it('lists the API reference in the shipped file', () => {

        const [group] = loadGateway(shippedGatewayYaml).routeGroups;
        expect(group.public_paths).to.equal(['/api/v1/openapi.json']);
    });

    it('defaults to no public path', () => {

        const file = editedGatewayYaml('public_paths: [/api/v1/openapi.json]', '');
        expect(loadGateway(file).routeGroups[0].public_paths).to.equal([]);
    });

    it('refuses a path that does not start with /', () => {

        const file = editedGatewayYaml('public_paths: [/api/v1/openapi.json]', 'public_paths: [api/v1/openapi.json]');
        expect(() => loadGateway(file)).to.throw(PolicyError, `${file}: route_groups[0].public_paths[0]: "api/v1/openapi.json" must start with "/"`);
    });
});

describe('assertRoutesFollowGroups() with public paths', () => {

    const shipped = () => loadGateway(shippedGatewayYaml);

    /** A bare server with the family-api strategy (authenticating nobody) and the given routes. */
    function serverWith(routes: ServerRoute[]): Server {

        const server = Hapi.server();
        server.auth.scheme('refuse-all', () => ({ authenticate: () => Boom.unauthorized() }));
        server.auth.strategy('family-api', 'refuse-all');
        server.route(routes);
        return server;
    }

    it('lets a GET at a public path go without the group\'s auth', () => {

        const server = serverWith([{ method: 'GET', path: '/api/v1/openapi.json', handler, options: { auth: false } }]);
        expect(() => assertRoutesFollowGroups(server, shipped())).to.not.throw();
    });

    it('still refuses any other method at a public path without auth', () => {

        const server = serverWith([{ method: 'POST', path: '/api/v1/openapi.json', handler, options: { auth: false } }]);
        expect(() => assertRoutesFollowGroups(server, shipped())).to.throw(/POST \/api\/v1\/openapi.json lies under route group "family-api" but does not use its auth/);
    });

    it('still refuses a path that is not listed exactly', () => {

        const server = serverWith([{ method: 'GET', path: '/api/v1/openapi.json/{more}', handler, options: { auth: false } }]);
        expect(() => assertRoutesFollowGroups(server, shipped())).to.throw(/GET \/api\/v1\/openapi.json\/\{more\} lies under route group "family-api"/);
    });

    it('refuses the reference without auth when the group lists no public path', () => {

        const [group] = shipped().routeGroups;
        const server = serverWith([{ method: 'GET', path: '/api/v1/openapi.json', handler, options: { auth: false } }]);
        expect(() => assertRoutesFollowGroups(server, { routeGroups: [{ ...group, public_paths: [] }] })).to.throw(/GET \/api\/v1\/openapi.json lies under route group "family-api" but does not use its auth/);
    });

    it('still requires the group\'s auth and declarations of every other route', () => {

        const server = serverWith([
            { method: 'GET', path: '/api/v1/openapi.json', handler, options: { auth: false } },
            {
                method: 'GET',
                path: '/api/v1/persons',
                handler,
                options: { auth: 'family-api', plugins: { gateway: { resource: 'persons', operation: 'read' } } }
            }
        ]);
        expect(() => assertRoutesFollowGroups(server, shipped())).to.not.throw();
    });
});

describe('the deployed gateway', () => {

    let deployed: Server;

    before(async () => {

        deployed = await testServer();
    });

    after(() => deployed.stop());

    it('serves the reference without a key while the records still need one', async () => {

        expect((await deployed.inject('/api/v1/openapi.json')).statusCode).to.equal(200);
        expect((await deployed.inject('/api/v1/persons')).statusCode).to.equal(401);
    });
});
