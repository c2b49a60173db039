import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { suspendFamily, unsuspendFamily } from '../../../lib/accounts/families';
import { familyWithKey, testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('suspendFamily()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('keeps the first suspension of a family suspended again, its reason, author and time, answering that nothing changed', async () => {

        const { familyLongId } = await familyWithKey(server);
        const first = await suspendFamily(server.app.services.accounts, familyLongId, 'Unpaid invoice', 'usr_first');
        expect(first.changed).to.be.true();
        expect(first.family.toJSON()).to.include({ api_suspension_reason: 'Unpaid invoice', api_suspended_by: 'usr_first' });

        const again = await suspendFamily(server.app.services.accounts, familyLongId, 'Scraping', 'usr_second');
        expect(again.changed).to.be.false();
        expect(again.family.toJSON()).to.include({ api_suspension_reason: 'Unpaid invoice', api_suspended_by: 'usr_first' });
        expect(again.family.api_suspended_at).to.equal(first.family.api_suspended_at);

        const stored = await server.app.services.models.Family.findByPk(familyLongId);
        expect(stored!.toJSON()).to.include({ api_suspension_reason: 'Unpaid invoice', api_suspended_by: 'usr_first' });
        expect(stored!.api_suspended_at).to.equal(first.family.api_suspended_at);
    });

    it('records one of two suspensions made at the same time, and answers the other with that one', async () => {

        const { familyLongId } = await familyWithKey(server);
        const outcomes = await Promise.all([
            suspendFamily(server.app.services.accounts, familyLongId, 'Unpaid invoice', 'usr_first'),
            suspendFamily(server.app.services.accounts, familyLongId, 'Scraping', 'usr_second')
        ]);

        expect(outcomes.map((outcome) => outcome.changed).sort()).to.equal([false, true]);
        const stored = await server.app.services.models.Family.findByPk(familyLongId);
        for (const { family } of outcomes) {
            expect(family.api_suspension_reason).to.equal(stored!.api_suspension_reason);
            expect(family.api_suspended_by).to.equal(stored!.api_suspended_by);
            expect(family.api_suspended_at).to.equal(stored!.api_suspended_at);
        }
    });

    it('answers an unknown family with not found, suspending nothing', async () => {

        await expect(suspendFamily(server.app.services.accounts, 'fam_doesnotexist', 'Scraping', 'cli')).to.reject('No family fam_doesnotexist.');
    });
});

describe('unsuspendFamily()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('lifts a suspension once: a family not suspended is left as it is, answering that nothing changed', async () => {

        const { familyLongId } = await familyWithKey(server);
        const { accounts } = server.app.services;
        expect((await unsuspendFamily(accounts, familyLongId)).changed).to.be.false();

        await suspendFamily(accounts, familyLongId, 'Unpaid invoice', 'cli');
        const outcomes = await Promise.all([unsuspendFamily(accounts, familyLongId), unsuspendFamily(accounts, familyLongId)]);
        expect(outcomes.map((outcome) => outcome.changed).sort()).to.equal([false, true]);
        for (const { family } of outcomes) {
            expect(family.toJSON()).to.include({ api_suspended_at: null, api_suspension_reason: null, api_suspended_by: null });
        }
    });
});
