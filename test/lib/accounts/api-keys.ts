import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { revokeApiKey } from '../../../lib/accounts/api-keys';
import { familyWithKey, testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('revokeApiKey()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('leaves a key revoked already as it was, when and by whom, answering that nothing changed', async () => {

        const { keyId } = await familyWithKey(server);
        const first = await revokeApiKey(server.app.services.accounts, keyId, 'usr_first');
        expect(first.changed).to.be.true();
        expect(first.apiKey.revoked_by).to.equal('usr_first');

        const again = await revokeApiKey(server.app.services.accounts, keyId, 'usr_second');
        expect(again.changed).to.be.false();
        expect(again.apiKey.revoked_by).to.equal('usr_first');
        expect(again.apiKey.revoked_at).to.equal(first.apiKey.revoked_at);
    });

    it('revokes a key once when two revocations come at the same time, and answers both with that one', async () => {

        const { keyId } = await familyWithKey(server);
        const outcomes = await Promise.all([revokeApiKey(server.app.services.accounts, keyId, 'usr_first'), revokeApiKey(server.app.services.accounts, keyId, 'usr_second')]);

        expect(outcomes.map((outcome) => outcome.changed).sort()).to.equal([false, true]);
        const stored = await server.app.services.models.ApiKey.findByPk(keyId);
        for (const { apiKey } of outcomes) {
            expect(apiKey.revoked_by).to.equal(stored!.revoked_by);
            expect(apiKey.revoked_at).to.equal(stored!.revoked_at);
        }
    });
});
