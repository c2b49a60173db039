import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { listDeviceGrants, revokeDeviceGrant } from '../../../lib/accounts/devices';
import { suspendFamily, suspendFamilyMessaging } from '../../../lib/accounts/families';
import { setUserDisabled } from '../../../lib/accounts/users';
import { createGroup } from '../../../lib/messaging/conversations';
import { sendMessage } from '../../../lib/messaging/messages';
import { getMe } from '../../helpers/devices';
import { messagingFamily } from '../../helpers/messaging';
import { testServer } from '../../helpers/server';
import { listeningServer } from '../stream/client';
import { closedWith, deviceToken, openedRecovery, receivedChanges, recoverySuiteTitle } from './stream-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(recoverySuiteTitle('closing'), () => {

    let server: Server;

    before(async () => {

        server = await listeningServer();
    });

    after(() => server.stop());

    const accounts = () => server.app.services.accounts;

    it('closes the device\'s streams when it is disconnected, saying why, and keeps the user\'s other devices\' open', async () => {

        const { actors, users } = await messagingFamily(server, 1);
        const token = await deviceToken(server, users[0]);
        const [disconnected, other] = [await openedRecovery(server, token), await openedRecovery(server, await deviceToken(server, users[0]))];
        await revokeDeviceGrant(accounts(), ((await getMe(server, token)).result as { device: { id: string } }).device.id, 'test');

        expect(await closedWith(disconnected)).to.equal({ code: 'invalid_token', message: 'This device has been disconnected: connect it again.' });
        await sendMessage(server.app.services.messaging, actors[0], (await createGroup(server.app.services.messaging, actors[0], 'Notes', [])).id, { body: 'still here' });
        await receivedChanges(other, 3);
        expect(other.finished).to.be.false();
        other.close();
    });

    it('closes the streams of a user disabled, and of a suspended family, with the code a new request would get', async () => {

        const disabled = await messagingFamily(server, 1);
        const suspended = await messagingFamily(server, 1);
        const streams = [await openedRecovery(server, await deviceToken(server, disabled.users[0])), await openedRecovery(server, await deviceToken(server, suspended.users[0]))];
        await setUserDisabled(accounts(), disabled.users[0].id, true);
        await suspendFamily(accounts(), suspended.familyLongId, 'unpaid', 'test');

        expect(await closedWith(streams[0])).to.equal({ code: 'account_disabled', message: 'This account is disabled: its devices are refused until an operator enables it again.' });
        expect((await closedWith(streams[1])).code).to.equal('family_suspended');
    });

    it('closes the streams of a family whose messaging a super-admin suspended', async () => {

        const { familyLongId, users } = await messagingFamily(server, 1);
        const stream = await openedRecovery(server, await deviceToken(server, users[0]));
        await suspendFamilyMessaging(accounts(), familyLongId, 'abuse', 'test');

        expect((await closedWith(stream)).code).to.equal('messaging_suspended');
    });

    it('keeps a stream open past the access token it was opened with, while the device stays connected', async () => {

        const { actors, users } = await messagingFamily(server, 1);
        const stream = await openedRecovery(server, await deviceToken(server, users[0]));
        const { DeviceToken } = server.app.services.models;
        await DeviceToken.destroy({ where: { kind: 'access', grant_id: (await listDeviceGrants(accounts(), { userId: users[0].id }))[0].id } });

        // Another device's disconnection moves the auth epoch: every open stream is checked again, in one pass.
        const someone = await messagingFamily(server, 1);
        const theirs = await openedRecovery(server, await deviceToken(server, someone.users[0]));
        await revokeDeviceGrant(accounts(), (await listDeviceGrants(accounts(), { userId: someone.users[0].id }))[0].id, 'test');
        expect((await closedWith(theirs)).code).to.equal('invalid_token');

        await createGroup(server.app.services.messaging, actors[0], 'Later', []);
        await receivedChanges(stream, 2);
        expect(stream.finished).to.be.false();
        stream.close();
    });

    it('closes a stream held by one instance when the user is disabled through another', async () => {

        const other = await testServer({ shareWith: server });
        try {
            const { users } = await messagingFamily(server, 1);
            const stream = await openedRecovery(server, await deviceToken(server, users[0]));
            await setUserDisabled(other.app.services.accounts, users[0].id, true);
            expect((await closedWith(stream)).code).to.equal('account_disabled');
        }
        finally {
            await other.stop();
        }
    });

    it('closes every stream with reason shutdown when the server stops', async () => {

        const stopping = await listeningServer();
        const { users } = await messagingFamily(stopping, 1);
        const stream = await openedRecovery(stopping, await deviceToken(stopping, users[0]));
        await stopping.stop({ timeout: 5000 });

        expect((await closedWith(stream)).code).to.equal('shutdown');
    });
});
