import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { listDeviceGrants, revokeDeviceGrant } from '../../../lib/accounts/devices';
import { suspendFamily, unsuspendFamily } from '../../../lib/accounts/families';
import { setUserDisabled } from '../../../lib/accounts/users';
import { connectedDevice, familyMember, getMe } from '../../helpers/devices';
import { familyWithKey, testServer, testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('GET /messaging/v1/me', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('answers whom the device token speaks for, under the messaging rate limits per device, user and family', async () => {

        const user = await familyMember(server);
        const device = await connectedDevice(server, user, { device_name: 'Den' });
        const response = await getMe(server, device.access_token);
        expect(response.statusCode).to.equal(200);
        expect(response.headers['ratelimit-policy']).to.equal('"device";q=300;w=60, "family";q=3000;w=60, "user";q=600;w=60');
        const body = response.result as Record<string, any>;
        expect(body.user).to.equal({ id: user.id, email: user.email });
        expect(body.family).to.equal({ id: user.family_long_id, name: 'Device family' });
        expect(body.device).to.include({ name: 'Den', client_id: 'family-records-desktop' });
        expect(body.scopes).to.equal(['profile', 'messages:read', 'messages:write', 'files:write']);
    });

    it('refuses a token without the profile scope with 403 token_scope', async () => {

        const device = await connectedDevice(server, await familyMember(server), { scope: 'messages:read' });
        const response = await getMe(server, device.access_token);
        expect(response.statusCode).to.equal(403);
        expect(response.result).to.include({ code: 'token_scope', message: 'This device token lacks the profile scope: connect the device again, approving it.' });
    });

    it('refuses a missing, malformed, unknown or expired token, and an API key, with 401 invalid_token', async () => {

        const device = await connectedDevice(server, await familyMember(server));
        const { key } = await familyWithKey(server);
        for (const token of ['nonsense', `frd_${'A'.repeat(36)}`, device.refresh_token, key]) {
            const response = await getMe(server, token);
            expect(response.statusCode, token).to.equal(401);
            expect(response.result).to.include({ code: 'invalid_token' });
            expect(response.headers['www-authenticate']).to.equal('Bearer realm="family-records", error="invalid_token"');
        }

        const missing = await server.inject('/messaging/v1/me');
        expect(missing.result).to.include({ code: 'invalid_token', message: 'Missing access token: send Authorization: Bearer <access token>.' });

        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);          // cached now
        await server.app.services.models.DeviceToken.update({ expires_at: new Date(Date.now() - 1) }, { where: { kind: 'access' } });
        await server.app.services.authEpoch.bump();
        expect((await getMe(server, device.access_token)).result).to.include({ code: 'invalid_token' });
    });

    it('refuses a disabled user with 403 account_disabled, and a suspended family with 403 family_suspended, from the next request', async () => {

        const accounts = server.app.services.accounts;
        const user = await familyMember(server);
        const device = await connectedDevice(server, user);
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);

        await setUserDisabled(accounts, user.id, true);
        expect((await getMe(server, device.access_token)).result).to.include({ code: 'account_disabled' });
        await setUserDisabled(accounts, user.id, false);
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);

        await suspendFamily(accounts, user.family_long_id!, 'unpaid', 'cli');
        expect((await getMe(server, device.access_token)).result).to.include({ code: 'family_suspended' });
        await unsuspendFamily(accounts, user.family_long_id!);
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);
    });

    describe(`on a second instance (${testVariant})`, () => {

        let second: Server;

        before(async () => {

            second = await testServer({ shareWith: server });
        });

        after(() => second.stop());

        /** Until `check` holds on the second instance, or a second has passed. */
        async function withinASecond(check: () => Promise<boolean>): Promise<boolean> {

            const deadline = Date.now() + 1000;
            while (Date.now() < deadline) {
                if (await check()) {
                    return true;
                }

                await new Promise((resolve) => setTimeout(resolve, 20));
            }

            return false;
        }

        it('refuses the tokens of a device disconnected, a user disabled or a family suspended on the first, within a second', async () => {

            const accounts = server.app.services.accounts;
            const refusedOnSecond = (token: string, code: string) => withinASecond(async () => ((await getMe(second, token)).result as { code?: string }).code === code);

            const revokedUser = await familyMember(server);
            const revoked = await connectedDevice(server, revokedUser);
            expect((await getMe(second, revoked.access_token)).statusCode).to.equal(200);          // cached there
            const [grant] = await listDeviceGrants(accounts, { userId: revokedUser.id });
            await revokeDeviceGrant(accounts, grant.id, 'cli');
            expect(await refusedOnSecond(revoked.access_token, 'invalid_token')).to.be.true();

            const disabledUser = await familyMember(server);
            const disabled = await connectedDevice(server, disabledUser);
            expect((await getMe(second, disabled.access_token)).statusCode).to.equal(200);
            await setUserDisabled(accounts, disabledUser.id, true);
            expect(await refusedOnSecond(disabled.access_token, 'account_disabled')).to.be.true();

            const suspendedUser = await familyMember(server);
            const suspended = await connectedDevice(server, suspendedUser);
            expect((await getMe(second, suspended.access_token)).statusCode).to.equal(200);
            await suspendFamily(accounts, suspendedUser.family_long_id!, 'unpaid', 'cli');
            expect(await refusedOnSecond(suspended.access_token, 'family_suspended')).to.be.true();
        });
    });
});
