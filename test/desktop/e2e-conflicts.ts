import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import { DesktopClient, startWindowServer } from 'family-records-desktop';
import { Op } from 'sequelize';

import { approveDeviceRequest } from '../../lib/accounts/devices';
import { changePlan, createFamily } from '../../lib/accounts/families';
import { setUserDisabled } from '../../lib/accounts/users';
import { blockUser, unblockUser } from '../../lib/messaging/blocks';
import { createGroup, removeGroupMember, startDirectConversation } from '../../lib/messaging/conversations';
import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { actorOf, bodiesOnServer, connectCli, DesktopCli, eventually, liteQuotaBytes, restartableService, type RestartableService } from '../helpers/desktop-e2e';
import { inHome, pngBytes } from '../helpers/desktop-e2e-files';
import { siteAccount } from '../plugins/site/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * The five rechecks of an offline outbox, each met for real: messages written while the service is stopped, then,
 * before the client comes back, the other person blocks, the group's manager removes the writer, the family's plan
 * goes down to Lite (which refuses a text file and whose storage a photo overflows), the account is disabled.
 * `sync` sends the outbox, `conflicts` and the window show each conflict with its reason, and `resolve` settles them.
 */

interface ConflictJson {
    id: string;
    reason: string;
    message: string;
    status: string;
    resolution: string | null;
    item: { conversation_id: string; body?: string; upload_ids?: string[] };
}

function isOutboxPost(request: Request): boolean {

    return request.method === 'post' && request.path === '/messaging/v1/outbox';
}

describe('conflicts of an offline outbox, in the command line and the window', { skip: !chromiumAvailable, timeout: 120_000 }, () => {

    let service: RestartableService;
    // The change of plan an administrator makes while the client flushes: after its files are uploaded (an upload
    // the plan refuses is refused as it is made), before the items naming them are sent.
    let planChange: (() => Promise<void>) | undefined;

    function planChangeHook(server: Server): void {

        server.ext('onPreHandler', async (request: Request, h: ResponseToolkit) => {

            const change = planChange;
            if (change && isOutboxPost(request) && JSON.stringify(request.payload).includes('upload_ids')) {
                planChange = undefined;
                await change();
            }

            return h.continue;
        });
    }

    before(async () => {

        service = await restartableService();
        service.onEveryInstance(planChangeHook);
    });

    after(async () => {

        await service?.stop();
    });

    // What the steps share: the people, their conversations, the client.
    let cli: DesktopCli;
    let alice: Awaited<ReturnType<typeof siteAccount>>;
    let bob: Awaited<ReturnType<typeof siteAccount>>;
    let familyLongId: string;
    const conversations: Record<'withBob' | 'withCarol' | 'garden' | 'photos', string> = { withBob: '', withCarol: '', garden: '', photos: '' };

    async function openConflicts(): Promise<ConflictJson[]> {

        return (await cli.json<{ conflicts: ConflictJson[] }>(['conflicts'])).conflicts;
    }

    it('turns what was written offline into conflicts of blocks, group membership, the attachment policy and the storage quota', async () => {

        const { accounts, messaging } = service.server.app.services;
        familyLongId = (await createFamily(accounts, { name: 'Conflict family', plan: 'family' })).family_long_id;
        const carol = await siteAccount(service.server, { role: 'manager', familyLongId });
        alice = await siteAccount(service.server, { role: 'member', familyLongId });
        bob = await siteAccount(service.server, { role: 'member', familyLongId });
        conversations.withBob = (await startDirectConversation(messaging, actorOf(alice.user), bob.user.id)).conversation.id;
        conversations.withCarol = (await startDirectConversation(messaging, actorOf(alice.user), carol.user.id)).conversation.id;
        conversations.garden = (await createGroup(messaging, actorOf(carol.user), 'Garden club', [alice.user.id, bob.user.id])).id;
        conversations.photos = (await createGroup(messaging, actorOf(alice.user), 'Photos', [carol.user.id])).id;

        cli = new DesktopCli();
        const connected = await connectCli(cli, service.baseUrl, (userCode) => approveDeviceRequest(accounts, userCode, alice.user));
        expect(connected.code, connected.stderr).to.equal(0);
        expect((await cli.run(['sync'])).code).to.equal(0);

        // Written while the service is stopped.
        await service.stop();
        const folder = Path.join(cli.home, '..');
        Fs.writeFileSync(Path.join(folder, 'notes.txt'), 'Seeds to buy: beans, peas, chard.\n');
        Fs.writeFileSync(Path.join(folder, 'beach.png'), pngBytes(liteQuotaBytes + 500));
        for (const args of [
            [conversations.withBob, 'Are you coming on Sunday?'],
            [conversations.garden, 'I will bring the spade'],
            [conversations.withCarol, 'The list', '--file', Path.join(folder, 'notes.txt')],
            [conversations.photos, 'The beach', '--file', Path.join(folder, 'beach.png')]
        ]) {
            const queued = await cli.run(['send', ...args]);
            expect(queued.code, queued.stderr).to.equal(3);
        }

        // Meanwhile on the service (a new instance over the same database): Bob blocks Alice, Carol takes her out of the
        // group, and the plan goes down to Lite once both files are uploaded.
        await service.start();
        const services = service.server.app.services;
        await blockUser(services.messaging, actorOf(bob.user), alice.user.id);
        await removeGroupMember(services.messaging, actorOf(carol.user), conversations.garden, alice.user.id);
        planChange = async () => {

            await eventually(async () => await services.messaging.models.MessagingUpload.count({ where: { user_id: alice.user.id, completed_at: { [Op.ne]: null } } }) === 2);
            await changePlan(services.accounts, familyLongId, 'lite');
        };

        const flushed = await cli.run(['sync']);
        expect(flushed.code, flushed.stderr).to.equal(0);
        expect(planChange).to.not.exist();
        expect((await cli.json<{ items: unknown[] }>(['outbox'])).items).to.equal([]);

        const conflicts = await openConflicts();
        const items = Object.fromEntries(conflicts.map((conflict) => [conflict.reason, [conflict.item.conversation_id, conflict.item.body]]));
        expect(items).to.equal({
            blocked: [conversations.withBob, 'Are you coming on Sunday?'],
            conversation_access: [conversations.garden, 'I will bring the spade'],
            attachment_policy: [conversations.withCarol, 'The list'],
            storage_quota: [conversations.photos, 'The beach']
        });
        const listed = await cli.run(['conflicts']);
        for (const conflict of conflicts) {
            expect(listed.stdout).to.contain(conflict.id);
            expect(listed.stdout).to.contain(conflict.message);
        }

        await changePlan(services.accounts, familyLongId, 'family');
    });

    it('turns what a disabled account wrote offline into conflicts when `sync` sends it', async () => {

        await service.stop();
        expect((await cli.run(['send', conversations.withCarol, 'Written before I was disabled'])).code).to.equal(3);
        await service.start();
        await setUserDisabled(service.server.app.services.accounts, alice.user.id, true);
        try {
            const flushed = await cli.run(['sync']);
            expect((await cli.json<{ items: unknown[] }>(['outbox'])).items, `the outbox after \`sync\` (${flushed.code}: ${flushed.stderr.trim()})`).to.equal([]);
        }
        finally {
            await setUserDisabled(service.server.app.services.accounts, alice.user.id, false);
        }

        const disabled = (await openConflicts()).find((conflict) => conflict.reason === 'account_disabled');
        expect(disabled?.item).to.include({ conversation_id: conversations.withCarol, body: 'Written before I was disabled' });
    });

    it('shows every open conflict in the window, with its reason in words', async () => {

        const conflicts = await openConflicts();
        await inHome(cli.home, async () => {

            const client = await DesktopClient.open();
            const window = await startWindowServer(client);
            const browser = await launchChromium();
            try {
                const page = await browser.newPage();
                await page.goto(window.url);
                await page.waitForSelector('[data-conversation-id]');
                const shown = new Map<string, string>();
                for (const link of await page.locator('[data-conversation-id]').all()) {
                    const title = await link.locator('.title').textContent();
                    await link.click();
                    await page.locator('#conversation-title', { hasText: title! }).waitFor();
                    for (const card of await page.locator('.conflict[data-conflict-id]').all()) {
                        shown.set((await card.getAttribute('data-conflict-id'))!, (await card.textContent())!);
                    }
                }

                const missing = conflicts.filter((conflict) => !shown.get(conflict.id)?.includes(conflict.message)).map((conflict) => conflict.reason);
                expect(missing, 'conflicts the window does not show').to.equal([]);
            }
            finally {
                await browser.close();
                await window.close();
                await client.close();
            }
        });
    });

    it('resolves them: the blocked message goes once Bob unblocks, the others are discarded', async () => {

        await unblockUser(service.server.app.services.messaging, actorOf(bob.user), alice.user.id);
        const conflicts = await openConflicts();
        for (const conflict of conflicts) {
            const resolved = await cli.run(['resolve', conflict.id, conflict.reason === 'blocked' ? '--retry' : '--discard']);
            expect(resolved.code, resolved.stderr).to.equal(0);
        }

        expect(await openConflicts()).to.equal([]);
        expect(await bodiesOnServer(service.server, conversations.withBob)).to.equal(['Are you coming on Sunday?']);
        for (const discarded of conflicts.filter((conflict) => conflict.reason !== 'blocked')) {
            expect(await bodiesOnServer(service.server, discarded.item.conversation_id)).to.not.include(discarded.item.body);
        }
    });
});
