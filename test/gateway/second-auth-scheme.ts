import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import Boom from '@hapi/boom';
import type { Server } from '@hapi/hapi';
import Joi from 'joi';

import type { AuthScheme } from '../../gateway/auth-scheme';
import { principalOf, type Principal, type PrincipalFamily } from '../../gateway/principal';
import { suspendFamily } from '../../lib/accounts/families';
import { projectRoot } from '../../lib/config';
import { familyWithKey, testServer, type FamilyFixture } from '../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * A second auth scheme needs its verifier and a route group in gateway.yaml, nothing more: this file (the
 * verifier and the test) and fixtures/two-auth-schemes.yaml are all this one takes. The group's policies run
 * on the principal it produces as they do on an API key's, with the group's own rate-limit preset.
 */

interface NoopConfig {
    user_id: string;
}

/** Admits `Authorization: Noop` as a user of the family `familyOf()` gives, allowed to read persons. */
function noopScheme(familyOf: () => PrincipalFamily): AuthScheme<NoopConfig> {

    return {
        config: Joi.object<NoopConfig, true>({ user_id: Joi.string().required() }),
        verifier: (config) => {

            return (request): Principal => {

                if (request.headers.authorization !== 'Noop') {
                    throw Boom.unauthorized(null, 'Noop');
                }

                const family = familyOf();
                return {
                    who: { kind: 'user', id: config.user_id },
                    credentialName: 'no-op token',
                    family,
                    scopes: { resources: ['persons'], operations: ['read'], legacyOperationsOnly: false, livingPersons: 'full' },
                    rateLimitSubjects: { own: { policy: 'user', subject: config.user_id }, family: { policy: 'family', subject: family.familyLongId } }
                };
            };
        },
        docs: { securityScheme: { type: 'http', scheme: 'bearer', bearerFormat: 'Noop', description: 'Send `Authorization: Noop`.' }, errors: ['invalid_key'] }
    };
}

describe('A second auth scheme beside API keys', () => {

    let server: Server;
    let keyFamily: FamilyFixture;
    let family: PrincipalFamily;

    before(async () => {

        server = await testServer({
            env: { GATEWAY_CONFIG: Path.join(projectRoot, 'test', 'gateway', 'fixtures', 'two-auth-schemes.yaml') },
            authSchemes: { noop: noopScheme(() => family) as AuthScheme }
        });

        keyFamily = await familyWithKey(server);
        family = { familyLongId: keyFamily.familyLongId, name: 'Test family', plan: 'family', apiEnabled: true, apiResources: ['persons', 'events'], suspended: false, messagingSuspended: false };
        for (const resource of ['persons', 'events']) {
            server.route({
                method: 'GET',
                path: `/noop/v1/${resource}`,
                options: { auth: 'noop-api', plugins: { gateway: { resource, operation: 'read' } } },
                handler: (request) => ({ who: principalOf(request).who })
            });
        }
    });

    after(() => server.stop());

    it('admits its credential through the group\'s policy chain, as a user principal, under the group\'s own rate-limit preset', async () => {

        const response = await server.inject({ method: 'GET', url: '/noop/v1/persons', headers: { authorization: 'Noop' } });

        expect(response.statusCode).to.equal(200);
        expect(response.result).to.equal({ who: { kind: 'user', id: 'usr_noop' } });
        expect(response.headers['ratelimit-policy']).to.equal('"user";q=3000;w=60, "family";q=6000;w=60');
    });

    it('refuses a request without its credential with the verifier\'s 401', async () => {

        const response = await server.inject({ method: 'GET', url: '/noop/v1/persons' });
        expect(response.statusCode).to.equal(401);
        expect(response.headers['www-authenticate']).to.equal('Noop');
    });

    it('runs the scope policies on its principal, naming its credential', async () => {

        const response = await server.inject({ method: 'GET', url: '/noop/v1/events', headers: { authorization: 'Noop' } });
        expect(response.statusCode).to.equal(403);
        expect(response.result).to.include({ code: 'resource_scope', message: 'This no-op token has no access to events.' });
    });

    it('runs the plan gate and the suspension on its principal\'s family', async () => {

        family = { ...family, plan: 'lite' };
        const lite = await server.inject({ method: 'GET', url: '/noop/v1/persons', headers: { authorization: 'Noop' } });
        expect(lite.statusCode).to.equal(403);
        expect(lite.result).to.include({ code: 'plan_not_eligible' });

        family = { ...family, plan: 'family', suspended: true };
        const suspended = await server.inject({ method: 'GET', url: '/noop/v1/persons', headers: { authorization: 'Noop' } });
        expect(suspended.statusCode).to.equal(403);
        expect(suspended.result).to.include({ code: 'family_suspended' });
        family = { ...family, suspended: false };
    });

    it('leaves the family API as it was: API keys only, with the plan\'s preset', async () => {

        const byKey = await keyFamily.inject('GET', '/api/v1/persons');
        expect(byKey.statusCode).to.equal(200);
        expect(byKey.headers['ratelimit-policy']).to.equal('"key";q=600;w=60, "family";q=1200;w=60');

        const byNoop = await server.inject({ method: 'GET', url: '/api/v1/persons', headers: { authorization: 'Noop' } });
        expect(byNoop.statusCode).to.equal(401);
        expect(byNoop.result).to.include({ code: 'invalid_key' });

        await suspendFamily(server.app.services.accounts, keyFamily.familyLongId, 'test', 'test');
        const suspended = await keyFamily.inject('GET', '/api/v1/persons');
        expect(suspended.result).to.include({ code: 'family_suspended' });
    });
});
