import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Browser } from 'playwright-core';

import { approveDeviceRequest } from '../../lib/accounts/devices';
import { createFamily } from '../../lib/accounts/families';
import { createGroup, startDirectConversation } from '../../lib/messaging/conversations';
import { sendMessage } from '../../lib/messaging/messages';
import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { actorOf, approveInChromium, bodiesOnServer, connectCli, DesktopCli, restartableService, type RestartableService } from '../helpers/desktop-e2e';
import { filesUnder, pngBytes, profileTokens } from '../helpers/desktop-e2e-files';
import { siteAccount } from '../plugins/site/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * The client's whole life against a real service, driven through its command line as a person does: signed in on
 * the real /device page in Chromium, sending online, writing while the service is really stopped (texts and a file,
 * kept in order), the service started again as a new instance over the same database, the outbox flushed in order,
 * then the device disconnected: the service refuses its old tokens and nothing of them stays on disk.
 */

describe('the desktop client against a service that stops and starts again', { skip: !chromiumAvailable, timeout: 120_000 }, () => {

    let service: RestartableService;
    let browser: Browser;

    before(async () => {

        service = await restartableService();
        browser = await launchChromium();
    });

    after(async () => {

        await browser?.close();
        await service?.stop();
    });

    it('signs in on /device, sends online, queues offline in order, flushes in order after a restart, and disconnects leaving no token', async () => {

        const accounts = service.server.app.services.accounts;
        const family = await createFamily(accounts, { name: 'Offline family', plan: 'family' });
        const alice = await siteAccount(service.server, { role: 'manager', familyLongId: family.family_long_id });
        const bob = await siteAccount(service.server, { role: 'member', familyLongId: family.family_long_id });
        const messaging = service.server.app.services.messaging;
        const direct = (await startDirectConversation(messaging, actorOf(alice.user), bob.user.id)).conversation;
        const group = await createGroup(messaging, actorOf(alice.user), 'Sunday lunch', [bob.user.id]);
        const cli = new DesktopCli();

        // Sign-in: the code the client printed is the one the /device page shows; the person approves it there.
        let deviceNameShown = '';
        const connected = await connectCli(cli, service.baseUrl, async (userCode, url) => {

            expect(url).to.equal(`${service.baseUrl}/device?user_code=${userCode}`);
            deviceNameShown = await approveInChromium(browser, url, alice, userCode);
        }, ['--device-name', 'Kitchen laptop']);
        expect(connected.code, connected.stderr).to.equal(0);
        expect(connected.stdout).to.contain(`Connected to ${service.baseUrl} as ${alice.email}`);
        expect(deviceNameShown).to.equal('Kitchen laptop');

        const status = await cli.json(['status']);
        expect(status).to.include({ email: alice.email, family_name: 'Offline family', device_name: 'Kitchen laptop', outbox: 0 });
        expect(status.key_store.kind).to.equal('file');
        const listed = await cli.json<{ conversations: Array<{ id: string; name: string }> }>(['conversations']);
        expect(listed.conversations.map((conversation) => conversation.id).sort()).to.equal([direct.id, group.id].sort());

        // Online: sent at once.
        const online = await cli.run(['send', direct.id, 'Hello while online']);
        expect(online.code, online.stderr).to.equal(0);
        expect(await bodiesOnServer(service.server, direct.id)).to.equal(['Hello while online']);

        // The service really stops: every send is kept, in the order written, and says so with exit code 3.
        await service.stop();
        const photo = Path.join(cli.home, '..', 'beach.png');
        Fs.writeFileSync(photo, pngBytes(1500));
        const offline: Array<{ conversationId: string; args: string[]; body: string | null }> = [
            { conversationId: direct.id, args: [direct.id, 'First, while the service is down'], body: 'First, while the service is down' },
            { conversationId: group.id, args: ['Sunday', 'To the group, offline'], body: 'To the group, offline' },
            { conversationId: direct.id, args: [direct.id, 'With a photo', '--file', photo], body: 'With a photo' },
            { conversationId: direct.id, args: [direct.id, 'Third, still down'], body: 'Third, still down' }
        ];
        for (const { args } of offline) {
            const queued = await cli.run(['send', ...args]);
            expect(queued.code, queued.stderr).to.equal(3);
        }

        const outbox = await cli.json<{ items: Array<{ conversation_id: string; body: string | null; files: Array<{ name: string }> }> }>(['outbox']);
        expect(outbox.items.map((item) => [item.conversation_id, item.body])).to.equal(offline.map((item) => [item.conversationId, item.body]));
        expect(outbox.items[2].files.map((file) => file.name)).to.equal(['beach.png']);
        const sync = await cli.run(['sync']);
        expect(sync.code).to.equal(3);

        // A new instance over the same database; meanwhile Bob wrote in the group.
        await service.start();
        await sendMessage(service.server.app.services.messaging, actorOf(bob.user), group.id, { body: 'Bob, while Alice was offline' });
        const flushed = await cli.run(['sync']);
        expect(flushed.code, flushed.stderr).to.equal(0);
        expect((await cli.json<{ items: unknown[] }>(['outbox'])).items).to.equal([]);
        expect(await bodiesOnServer(service.server, direct.id)).to.equal(['Hello while online', 'First, while the service is down', 'With a photo', 'Third, still down']);
        expect(await bodiesOnServer(service.server, group.id)).to.equal(['Bob, while Alice was offline', 'To the group, offline']);
        const withPhoto = await service.server.app.services.messaging.models.Message.findOne({ where: { conversation_id: direct.id, body: 'With a photo' } });
        expect(withPhoto!.attachments.map((file) => [file.file_name, file.media_type, file.size_bytes])).to.equal([['beach.png', 'image/png', 1500]]);
        const history = await cli.json<{ messages: Array<{ body: string | null }> }>(['history', group.id]);
        expect(history.messages.map((message) => message.body)).to.equal(['Bob, while Alice was offline', 'To the group, offline']);

        // Disconnect: the service refuses the old tokens, and no token or key is left on this computer.
        const tokens = await profileTokens(cli.home);
        const disconnected = await cli.run(['disconnect']);
        expect(disconnected.code, disconnected.stderr).to.equal(0);
        const me = await fetch(`${service.baseUrl}/messaging/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(me.status).to.equal(401);
        const refresh = await fetch(`${service.baseUrl}/oauth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'family-records-desktop' })
        });
        expect(refresh.status).to.equal(400);
        expect(await refresh.json()).to.include({ error: 'invalid_grant' });
        for (const file of filesUnder(cli.home)) {
            const content = Fs.readFileSync(file);
            expect(content.includes(tokens.refresh_token), file).to.be.false();
            expect(content.includes(tokens.access_token), file).to.be.false();
            expect(content.includes(tokens.cacheKey), file).to.be.false();
        }

        expect((await cli.run(['status'])).code).to.equal(4);
        expect((await cli.run(['send', direct.id, 'After disconnecting'])).code).to.equal(4);

        // Connected again, then disconnected with --forget: the profile's directory goes whole.
        const again = await connectCli(cli, service.baseUrl, (userCode) => approveDeviceRequest(service.server.app.services.accounts, userCode, alice.user));
        expect(again.code, again.stderr).to.equal(0);
        const profiles = Path.join(cli.home, 'profiles');
        expect(Fs.readdirSync(profiles)).to.have.length(1);
        const forgotten = await cli.run(['disconnect', '--forget']);
        expect(forgotten.code, forgotten.stderr).to.equal(0);
        expect(Fs.readdirSync(profiles)).to.equal([]);
        expect(filesUnder(profiles)).to.equal([]);
    });
});
