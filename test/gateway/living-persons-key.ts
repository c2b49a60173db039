import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';

import { changeApiKeyScopes } from '../../lib/accounts/api-keys';
import { ServiceError } from '../../lib/errors';
import { principalOf } from '../../gateway/principal';
import { familyWithKey, testServer, testRedisUrl, testVariant } from '../helpers/server';
import { expectSuccess, injectWithKey } from './requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

// As for scopes: on SQLite the instances share the auth-epoch marker file, on PostgreSQL with Redis the epoch in Redis.
describe(`an API key's living_persons option, on the principal (${testVariant}${testRedisUrl ? ' + redis' : ''})`, () => {

    let a: Server;
    let b: Server;
    /** What each instance's last authenticated request carried, by key id. */
    const seen = new Map<string, string>();

    const recordLivingPersons = (request: Request, h: ResponseToolkit) => {

        if (request.auth.isAuthenticated) {
            const principal = principalOf(request);
            seen.set(`${request.server.info.id} ${principal.who.id}`, principal.scopes.livingPersons);
        }

        return h.continue;
    };

    before(async () => {

        a = await testServer();
        b = await testServer({ shareWith: a });
        a.ext('onPostAuth', recordLivingPersons);
        b.ext('onPostAuth', recordLivingPersons);
    });

    after(async () => {

        await b.stop();
        await a.stop();
    });

    /** The living_persons of the principal of one request with the key to `server`. */
    async function principalLivingPersons(server: Server, family: { key: string; keyId: string }): Promise<string | undefined> {

        expectSuccess(await injectWithKey(server, family.key, 'GET', '/api/v1/persons'));
        return seen.get(`${server.info.id} ${family.keyId}`);
    }

    it('is full for a key created without choosing, redacted for a key created redacted', async () => {

        expect(await principalLivingPersons(a, await familyWithKey(a))).to.equal('full');
        expect(await principalLivingPersons(a, await familyWithKey(a, { livingPersons: 'redacted' }))).to.equal('redacted');
    });

    it('changes as scopes do: on the next request, on the instance that made the change and on another that had the key cached', async () => {

        const family = await familyWithKey(a, { livingPersons: 'redacted' });
        expect(await principalLivingPersons(b, family)).to.equal('redacted');
        expect(await principalLivingPersons(b, family)).to.equal('redacted');

        const changed = await changeApiKeyScopes(a.app.services.accounts, family.keyId, { livingPersons: 'full' });
        expect(changed.living_persons).to.equal('full');
        expect(await principalLivingPersons(b, family)).to.equal('full');
        expect(await principalLivingPersons(a, family)).to.equal('full');

        await changeApiKeyScopes(a.app.services.accounts, family.keyId, { resources: ['persons'] });
        expect(await principalLivingPersons(b, family), 'a change of resources alone keeps it').to.equal('full');
        await changeApiKeyScopes(a.app.services.accounts, family.keyId, { livingPersons: 'redacted' });
        expect(await principalLivingPersons(b, family)).to.equal('redacted');
    });

    it('is refused in words when neither full nor redacted, changing nothing', async () => {

        const family = await familyWithKey(a, { livingPersons: 'redacted' });
        const choice = 'none' as 'full';
        await expect(changeApiKeyScopes(a.app.services.accounts, family.keyId, { resources: ['persons'], livingPersons: choice })).to.reject(ServiceError, 'Living persons must be one of full, redacted.');
        const key = (await a.app.services.models.ApiKey.findByPk(family.keyId))!;
        expect(key.living_persons).to.equal('redacted');
        expect(key.resource_scopes).to.have.length(8);
    });
});
