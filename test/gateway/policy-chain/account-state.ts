import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { approveDeviceRequest } from '../../../lib/accounts/devices';
import { restoreFamilyMessaging, suspendFamily, suspendFamilyMessaging } from '../../../lib/accounts/families';
import { setUserDisabled } from '../../../lib/accounts/users';
import { connectedDevice, deviceRequest, familyMember, getMe } from '../../helpers/devices';
import { familyWithKey, testRedisUrl, testServer, testVariant } from '../../helpers/server';
import { expectRefusal, expectSuccess } from '../requests';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const codeOf = (result: unknown) => (result as { code?: string }).code;

describe('accountState() on the messaging route group', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('refuses a family whose messaging is suspended with 403 messaging_suspended from the next request, and serves it once restored', async () => {

        const accounts = server.app.services.accounts;
        const user = await familyMember(server);
        const device = await connectedDevice(server, user);
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);           // cached

        const { changed } = await suspendFamilyMessaging(accounts, user.family_long_id!, 'Under review', 'cli');
        expect(changed).to.be.true();
        const refused = await getMe(server, device.access_token);
        expect(refused.statusCode).to.equal(403);
        expect(refused.result).to.include({ code: 'messaging_suspended', message: 'Messaging is suspended for this family by the service\'s operator: it works again once they restore it.' });

        expect((await restoreFamilyMessaging(accounts, user.family_long_id!)).changed).to.be.true();
        expect((await getMe(server, device.access_token)).statusCode).to.equal(200);
    });

    it('leaves the family API of a family whose messaging is suspended, and the messaging of another family, as they were', async () => {

        const accounts = server.app.services.accounts;
        const family = await familyWithKey(server);
        const other = await familyMember(server);
        const otherDevice = await connectedDevice(server, other);
        await suspendFamilyMessaging(accounts, family.familyLongId, 'Under review', 'cli');

        expectSuccess(await family.inject('GET', '/api/v1/persons'));
        expect((await getMe(server, otherDevice.access_token)).statusCode).to.equal(200);
    });

    it('answers a disabled user account_disabled, then a suspended family family_suspended, before messaging_suspended', async () => {

        const accounts = server.app.services.accounts;
        const user = await familyMember(server);
        const device = await connectedDevice(server, user);
        await suspendFamilyMessaging(accounts, user.family_long_id!, 'Under review', 'cli');
        await suspendFamily(accounts, user.family_long_id!, 'Unpaid', 'cli');
        await setUserDisabled(accounts, user.id, true);

        expect(codeOf((await getMe(server, device.access_token)).result)).to.equal('account_disabled');
        await setUserDisabled(accounts, user.id, false);
        expect(codeOf((await getMe(server, device.access_token)).result)).to.equal('family_suspended');
    });

    it('lets no device of a family whose messaging is suspended be connected', async () => {

        const accounts = server.app.services.accounts;
        const user = await familyMember(server);
        await suspendFamilyMessaging(accounts, user.family_long_id!, 'Under review', 'cli');
        const request = await deviceRequest(server);
        await expect(approveDeviceRequest(accounts, request.userCode, user)).to.reject('This family\'s messaging is suspended: no device can be connected until it is restored.');
    });

    it('keeps the first suspension of messaging, refuses one without a reason, and says when a restore changed nothing', async () => {

        const accounts = server.app.services.accounts;
        const user = await familyMember(server);
        await expect(suspendFamilyMessaging(accounts, user.family_long_id!, ' ', 'cli')).to.reject('Give a reason for the suspension: family managers see it.');
        expect((await restoreFamilyMessaging(accounts, user.family_long_id!)).changed).to.be.false();

        await suspendFamilyMessaging(accounts, user.family_long_id!, 'First', 'usr_first');
        const again = await suspendFamilyMessaging(accounts, user.family_long_id!, 'Second', 'usr_second');
        expect(again.changed).to.be.false();
        expect(again.family.toJSON()).to.include({ messaging_suspension_reason: 'First', messaging_suspended_by: 'usr_first' });
        await expect(suspendFamilyMessaging(accounts, 'fam_doesnotexist0000000000000000000', 'Why', 'cli')).to.reject('No family fam_doesnotexist0000000000000000000.');
    });

    // On SQLite the instances share the database file and the auth-epoch marker file; on PostgreSQL with Redis, the database and the epoch in Redis.
    describe(`on two instances (${testVariant}${testRedisUrl ? ' + redis' : ''})`, () => {

        let second: Server;

        before(async () => {

            second = await testServer({ shareWith: server });
        });

        after(() => second.stop());

        /** Whether GET /messaging/v1/me on the second instance answers `code` (or 200 for undefined) within a second. */
        async function onSecondWithinASecond(token: string, code: string | undefined): Promise<boolean> {

            const deadline = Date.now() + 1000;
            do {
                const response = await getMe(second, token);
                if (code === undefined ? response.statusCode === 200 : codeOf(response.result) === code) {
                    return true;
                }

                await new Promise((resolve) => setTimeout(resolve, 20));
            } while (Date.now() < deadline);

            return false;
        }

        it('refuses on the second a family whose messaging was suspended on the first within a second, and serves it there once restored', async () => {

            const accounts = server.app.services.accounts;
            const user = await familyMember(server);
            const device = await connectedDevice(server, user);
            expect((await getMe(second, device.access_token)).statusCode).to.equal(200);            // cached there

            await suspendFamilyMessaging(accounts, user.family_long_id!, 'Under review', 'cli');
            expect(await onSecondWithinASecond(device.access_token, 'messaging_suspended')).to.be.true();
            expectRefusal(await getMe(second, device.access_token), 403, 'messaging_suspended');

            await restoreFamilyMessaging(accounts, user.family_long_id!);
            expect(await onSecondWithinASecond(device.access_token, undefined)).to.be.true();
        });

        it('tells a long-lived request on the second (as a stream is) within a second, and checking it again answers messaging_suspended', async () => {

            // What a stream does: it waits, and when the auth epoch moves it checks its credential again (gateway/reverify.ts).
            let listening!: () => void;
            const waiting = new Promise<void>((resolve) => (listening = resolve));
            second.route({
                method: 'GET',
                path: '/messaging/v1/held-open',
                options: {
                    auth: 'messaging',
                    plugins: { gateway: { scope: 'profile' } },
                    async handler(request) {

                        let stop!: () => void;
                        await new Promise<void>((moved) => {

                            void second.app.services.authEpoch.subscribe(moved).then((unsubscribe) => {

                                stop = unsubscribe;
                                listening();
                            });
                        });
                        stop();
                        try {
                            await second.plugins.gateway.reverify(request);
                            return { still: 'admitted' };
                        }
                        catch (error) {
                            return { closed: (error as { output: { payload: { code: string } } }).output.payload.code };
                        }
                    }
                }
            });

            const user = await familyMember(server);
            const device = await connectedDevice(server, user);
            const held = second.inject({ method: 'GET', url: '/messaging/v1/held-open', headers: { authorization: `Bearer ${device.access_token}` } });
            await waiting;

            const suspendedAt = Date.now();
            await suspendFamilyMessaging(server.app.services.accounts, user.family_long_id!, 'Under review', 'cli');
            const answer = await held;
            expect(answer.result).to.equal({ closed: 'messaging_suspended' });
            expect(Date.now() - suspendedAt).to.be.below(1000);
        });
    });
});
