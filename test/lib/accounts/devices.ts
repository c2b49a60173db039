import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { exchangeDeviceCode } from '../../../lib/accounts/device-flow';
import { approveDeviceRequest, denyDeviceRequest, findDeviceRequest, generateUserCode, listDeviceGrants, normalizeUserCode, revokeDeviceGrant } from '../../../lib/accounts/devices';
import { suspendFamily } from '../../../lib/accounts/families';
import { ServiceError } from '../../../lib/errors';
import { deviceRequest, familyMember } from '../../helpers/devices';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('devices', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    describe('normalizeUserCode()', () => {

        it('ignores case, dashes and spaces', () => {

            expect(normalizeUserCode('bcdf-ghjk')).to.equal('BCDFGHJK');
            expect(normalizeUserCode(' BCDF GHJK ')).to.equal('BCDFGHJK');
            expect(normalizeUserCode('bcdfghjk')).to.equal('BCDFGHJK');
        });

        it('refuses what is not 8 letters of the alphabet', () => {

            for (const entered of ['BCDF-GHJ', 'BCDF-GHJKL', 'ABCD-FGHJ', 'BCDF-GH1K', 'BCDF_GHJK', '']) {
                expect(normalizeUserCode(entered)).to.be.undefined();
            }
        });

        it('takes every code generateUserCode() makes', () => {

            for (let i = 0; i < 100; ++i) {
                const code = generateUserCode();
                expect(normalizeUserCode(code)).to.equal(code);
            }
        });
    });

    describe('findDeviceRequest()', () => {

        it('shows a new request as pending, with the scopes in plain words and the device name as sent', async () => {

            const { userCode } = await deviceRequest(server, { scope: 'profile', deviceName: 'Grandma\'s <b>laptop</b>' });
            expect(userCode).to.match(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);

            const view = await findDeviceRequest(server.app.services.accounts, userCode.toLowerCase().replace('-', ''));
            expect(view).to.include({ userCode, clientId: 'family-records-desktop', clientName: 'Family Records Desktop', deviceName: 'Grandma\'s <b>laptop</b>', requestedFrom: '192.0.2.7', status: 'pending' });
            expect(view!.scopes).to.equal([{ scope: 'profile', description: 'See your email address, your family\'s name and this device\'s connection.' }]);
            expect(view!.expiresAt.getTime() - view!.requestedAt.getTime()).to.be.within(899_000, 900_000);
        });

        it('finds nothing for an unknown or malformed code', async () => {

            expect(await findDeviceRequest(server.app.services.accounts, 'BBBB-BBBB')).to.be.undefined();
            expect(await findDeviceRequest(server.app.services.accounts, 'not a code')).to.be.undefined();
        });

        it('shows a request past its end as expired', async () => {

            const { userCode } = await deviceRequest(server);
            await server.app.services.models.DeviceRequest.update({ expires_at: new Date(Date.now() - 1000) }, { where: { user_code: normalizeUserCode(userCode)! } });
            expect((await findDeviceRequest(server.app.services.accounts, userCode))!.status).to.equal('expired');
        });
    });

    describe('approveDeviceRequest()', () => {

        it('binds a grant to the user and their family, and hands its tokens to the next poll', async () => {

            const user = await familyMember(server);
            const { userCode, deviceCode } = await deviceRequest(server, { deviceName: 'Desk' });
            const grant = await approveDeviceRequest(server.app.services.accounts, userCode, user);
            expect(grant.id).to.match(/^dev_/);
            expect(grant).to.include({ userId: user.id, userEmail: user.email, familyLongId: user.family_long_id!, clientId: 'family-records-desktop', deviceName: 'Desk', revokedAt: null });
            expect(grant.scopes).to.equal(['profile', 'messages:read', 'messages:write', 'files:write']);
            expect((await findDeviceRequest(server.app.services.accounts, userCode))!.status).to.equal('approved');

            const tokens = await exchangeDeviceCode(server.app.services.accounts, { clientId: 'family-records-desktop', deviceCode });
            expect(tokens.access_token).to.match(/^frd_/);
            expect(tokens.refresh_token).to.match(/^frr_/);
        });

        it('refuses a code decided already, expired, or unknown', async () => {

            const user = await familyMember(server);
            const accounts = server.app.services.accounts;
            const approved = await deviceRequest(server);
            await approveDeviceRequest(accounts, approved.userCode, user);
            await expect(approveDeviceRequest(accounts, approved.userCode, user)).to.reject(ServiceError, 'This code was approved already.');
            await expect(denyDeviceRequest(accounts, approved.userCode, user)).to.reject(ServiceError, 'This code was approved already.');

            const expired = await deviceRequest(server);
            await server.app.services.models.DeviceRequest.update({ expires_at: new Date(Date.now() - 1) }, { where: { user_code: normalizeUserCode(expired.userCode)! } });
            const error = await expect(approveDeviceRequest(accounts, expired.userCode, user)).to.reject(ServiceError);
            expect(error).to.include({ code: 'conflict', statusCode: 409 });
            expect(error.message).to.startWith('This code has expired');

            await expect(approveDeviceRequest(accounts, 'BBBB-BBBB', user)).to.reject(ServiceError, /No device is waiting for this code/);
        });

        it('approves once when two approvals come at the same time', async () => {

            const user = await familyMember(server);
            const { userCode } = await deviceRequest(server);
            const approve = () => approveDeviceRequest(server.app.services.accounts, userCode, user);
            const outcomes = await Promise.allSettled([approve(), approve()]);
            expect(outcomes.map((outcome) => outcome.status).sort()).to.equal(['fulfilled', 'rejected']);
            expect(await server.app.services.models.DeviceGrant.count({ where: { user_id: user.id } })).to.equal(1);
        });

        it('refuses a disabled user, a user of a suspended family, and a user of no family', async () => {

            const accounts = server.app.services.accounts;
            const disabled = await familyMember(server);
            await disabled.update({ disabled_at: new Date() });
            await expect(approveDeviceRequest(accounts, (await deviceRequest(server)).userCode, disabled)).to.reject(ServiceError, /disabled/);

            const suspended = await familyMember(server);
            await suspendFamily(accounts, suspended.family_long_id!, 'unpaid', 'cli');
            const error = await expect(approveDeviceRequest(accounts, (await deviceRequest(server)).userCode, suspended)).to.reject(ServiceError);
            expect(error).to.include({ code: 'family_suspended', statusCode: 403 });

            const familyless = await familyMember(server);
            await familyless.update({ family_long_id: null, role: null, is_super_admin: true });
            await expect(approveDeviceRequest(accounts, (await deviceRequest(server)).userCode, familyless)).to.reject(ServiceError, /belongs to none/);
        });
    });

    describe('denyDeviceRequest()', () => {

        it('denies a pending request, which can then not be approved', async () => {

            const user = await familyMember(server);
            const { userCode } = await deviceRequest(server);
            await denyDeviceRequest(server.app.services.accounts, userCode, user);
            expect((await findDeviceRequest(server.app.services.accounts, userCode))!.status).to.equal('denied');
            await expect(approveDeviceRequest(server.app.services.accounts, userCode, user)).to.reject(ServiceError, 'This code was denied already.');
        });
    });

    describe('listDeviceGrants() and revokeDeviceGrant()', () => {

        it('lists a user\'s or a family\'s live devices, newest first, and no revoked one', async () => {

            const accounts = server.app.services.accounts;
            const user = await familyMember(server);
            const first = await approveDeviceRequest(accounts, (await deviceRequest(server, { deviceName: 'first' })).userCode, user);
            await new Promise((resolve) => setTimeout(resolve, 5));
            const second = await approveDeviceRequest(accounts, (await deviceRequest(server, { deviceName: 'second' })).userCode, user);
            expect((await listDeviceGrants(accounts, { userId: user.id })).map((grant) => grant.id)).to.equal([second.id, first.id]);
            expect((await listDeviceGrants(accounts, { familyLongId: user.family_long_id! })).map((grant) => grant.id)).to.equal([second.id, first.id]);
            expect(await listDeviceGrants(accounts, { userId: (await familyMember(server)).id })).to.equal([]);

            const revoked = await revokeDeviceGrant(accounts, first.id, 'usr_revoker');
            expect(revoked.changed).to.be.true();
            expect(revoked.grant.revokedAt).to.be.a.date();
            expect((await listDeviceGrants(accounts, { userId: user.id })).map((grant) => grant.id)).to.equal([second.id]);
        });

        it('keeps a revoked grant as it was, and answers that nothing changed', async () => {

            const accounts = server.app.services.accounts;
            const grant = await approveDeviceRequest(accounts, (await deviceRequest(server)).userCode, await familyMember(server));
            const first = await revokeDeviceGrant(accounts, grant.id, 'usr_first');
            const again = await revokeDeviceGrant(accounts, grant.id, 'usr_second');
            expect(again.changed).to.be.false();
            expect(again.grant.revokedAt).to.equal(first.grant.revokedAt);
            expect((await server.app.services.models.DeviceGrant.findByPk(grant.id))!.revoked_by).to.equal('usr_first');
        });

        it('refuses an unknown grant', async () => {

            const error = await expect(revokeDeviceGrant(server.app.services.accounts, 'dev_unknown', 'cli')).to.reject(ServiceError);
            expect(error).to.include({ code: 'not_found', statusCode: 404 });
        });
    });
});
