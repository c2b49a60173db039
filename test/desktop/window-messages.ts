import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { startWindowServer, type DesktopClient, type WindowServer } from 'family-records-desktop';
import type { Browser, Page } from 'playwright-core';

import { blockUser, unblockUser } from '../../lib/messaging/blocks';
import { createGroup, startDirectConversation } from '../../lib/messaging/conversations';
import { sendMessage } from '../../lib/messaging/messages';
import { chromiumAvailable, launchChromium, screenshot } from '../helpers/chromium';
import { actorOf, bodiesOnServer } from '../helpers/desktop-e2e';
import { pngBytes } from '../helpers/desktop-e2e-files';
import { connectDesktopClient, desktopService, type DesktopMember, type DesktopService } from '../helpers/desktop-service';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * The desktop window in Chromium, over a real client connected to a real service: the conversations with their unread
 * counts, a conversation's history kept live, a text and a file sent through the outbox, the outbox kept offline and
 * sent when the service is back, and a refused message shown where it was written, retried, edited or discarded.
 */

describe('desktop window: messages in Chromium', { skip: !chromiumAvailable, timeout: 120_000 }, () => {

    let service: DesktopService;
    let client: DesktopClient;
    let window: WindowServer;
    let browser: Browser;
    let page: Page;
    let alice: DesktopMember;
    let bob: DesktopMember;
    let carol: DesktopMember;
    let directId: string;
    let groupId: string;

    const messaging = () => service.server.app.services.messaging;
    const conversationButton = (id: string) => page.locator(`[data-conversation-id="${id}"]`);
    const historyTexts = () => page.locator('#history li.message .body').allTextContents();

    async function compose(body: string, file?: { name: string; bytes: Buffer }) {

        await page.fill('#compose-body', body);
        if (file) {
            await page.setInputFiles('#compose-files', { name: file.name, mimeType: 'image/png', buffer: file.bytes });
        }

        await page.click('#compose button[type="submit"]');
    }

    /** Every outbox state the page shows from now on, as it showed it (a script of the page: this project has no DOM types). */
    const recordOutboxStates = () => page.evaluate(`
        window.outboxStates = [];
        new MutationObserver(() => {
            for (const state of document.querySelectorAll('.outbox-state')) {
                if (window.outboxStates.at(-1) !== state.textContent) {
                    window.outboxStates.push(state.textContent);
                }
            }
        }).observe(document.getElementById('history'), { childList: true, subtree: true, characterData: true });
    `);

    const outboxStates = () => page.evaluate('window.outboxStates') as Promise<string[]>;

    before(async () => {

        service = await desktopService();
        alice = await service.member();
        bob = await service.member();
        carol = await service.member();
        directId = (await startDirectConversation(messaging(), actorOf(alice.user), bob.user.id)).conversation.id;
        groupId = (await createGroup(messaging(), actorOf(alice.user), 'Sunday lunch', [bob.user.id])).id;
        await sendMessage(messaging(), actorOf(bob.user), directId, { body: 'Are you coming on Sunday?' });
        await sendMessage(messaging(), actorOf(bob.user), directId, { body: '<b>Bring</b> the photos' });

        client = await connectDesktopClient(service, alice);
        await client.sync();
        window = await startWindowServer(client);
        browser = await launchChromium();
        page = await (await browser.newContext()).newPage();
        await page.goto(window.url);
        expect(page.url()).to.equal(new URL('/', window.url).href);
    });

    after(async () => {

        await browser?.close();
        await window?.close();
        await client?.close();
        await service?.stop();
    });

    it('lists the conversations with their unread counts, opens one with its history (text as text), and marks it read', async () => {

        await page.waitForSelector(`[data-conversation-id="${directId}"] .unread`);
        expect(await conversationButton(directId).locator('.unread').textContent()).to.equal('2');
        expect(await conversationButton(directId).locator('.unread').getAttribute('aria-label')).to.equal('2 unread');
        await conversationButton(directId).locator(`.title:text-is("${bob.email}")`).waitFor();
        expect(await conversationButton(groupId).textContent()).to.equal('Sunday lunch');
        await page.locator('#connection:text-is("Online")').waitFor();
        expect(await page.locator('#offline-banner').isHidden()).to.be.true();
        await screenshot(page, 'window-conversations');

        await conversationButton(directId).click();
        await page.waitForSelector('#history li.message');
        expect(await historyTexts()).to.equal(['Are you coming on Sunday?', '<b>Bring</b> the photos']);
        expect(await page.locator('#history b').count()).to.equal(0);
        expect(await page.textContent('#conversation-title')).to.equal(bob.email);
        await conversationButton(directId).locator('.unread').waitFor({ state: 'detached' });

        // Live: what Bob writes now shows without a reload.
        await sendMessage(messaging(), actorOf(bob.user), directId, { body: 'See you there' });
        await page.waitForSelector('#history li.message:has-text("See you there")');
        await screenshot(page, 'window-history');
    });

    it('starts a direct conversation and a group from "New conversation", and opens each', async () => {

        const startWith = async (emails: string[], title = '') => {

            await page.click('#new-conversation');
            for (const email of emails) {
                await page.locator(`#start-people label:has-text("${email}") input`).check();
            }

            await page.fill('#start-title', title);
            await page.click('#start-form button[type="submit"]');
        };

        await startWith([bob.email, carol.email]);
        expect(await page.locator('#start-error').textContent()).to.equal('A conversation of more than two is a group: give it a title.');
        await screenshot(page, 'window-new-conversation');
        await page.click('#start-cancel');
        expect(await page.locator('#start-form').isHidden()).to.be.true();

        await startWith([carol.email]);
        await page.locator(`#conversation-title:text-is("${carol.email}")`).waitFor();
        expect(await page.locator('#start-form').isHidden()).to.be.true();
        const withCarol = (await startDirectConversation(messaging(), actorOf(alice.user), carol.user.id)).conversation.id;
        expect(await conversationButton(withCarol).getAttribute('aria-current')).to.equal('true');

        await startWith([bob.email, carol.email], 'Cousins');
        await page.locator('#conversation-title:text-is("Cousins")').waitFor();
        await page.locator('#history li.empty:text-is("No messages yet: write the first one below.")').waitFor();
        await screenshot(page, 'window-started');
        const cousins = (await client.store.conversations()).find((conversation) => conversation.title === 'Cousins')!;
        expect(cousins.member_ids.sort()).to.equal([alice.user.id, bob.user.id, carol.user.id].sort());
        expect(await conversationButton(cousins.id).getAttribute('aria-current')).to.equal('true');
    });

    it('sends a text with a file: the outbox shows it, then the message with its file, which downloads', async () => {

        await conversationButton(groupId).click();
        await page.locator('#conversation-title:text-is("Sunday lunch")').waitFor();
        await recordOutboxStates();
        await compose('Photos from the beach', { name: 'beach.png', bytes: pngBytes(3000) });

        const sent = page.locator('#history li.message[data-message-id]:has-text("Photos from the beach")');
        await sent.waitFor();
        await page.locator('#history [data-outbox-key]').waitFor({ state: 'detached' });
        expect(await page.inputValue('#compose-body')).to.equal('');
        expect(await bodiesOnServer(service.server, groupId)).to.equal(['Photos from the beach']);
        const link = sent.locator('.attachments a');
        expect(await link.textContent()).to.equal('beach.png');

        const download = await page.evaluate(async (href) => {

            const answer = await fetch(href);
            return { status: answer.status, disposition: answer.headers.get('content-disposition'), csp: answer.headers.get('content-security-policy'), size: (await answer.arrayBuffer()).byteLength };
        }, (await link.getAttribute('href'))!);
        expect(download).to.equal({ status: 200, disposition: "attachment; filename*=UTF-8''beach.png", csp: 'sandbox', size: 3000 });
        expect((await outboxStates()).every((state) => /^(queued|uploading \d+%|sending)$/.test(state))).to.be.true();
    });

    it('offline: says so, keeps the message "queued" with its file, and sends it when the service is back', async () => {

        await service.goOffline();
        await page.locator('#offline-banner').waitFor({ state: 'visible' });
        expect(await page.textContent('#connection')).to.equal('Offline');
        expect(await page.textContent('#offline-banner')).to.contain('You are offline.');
        await recordOutboxStates();
        await compose('Written offline', { name: 'sunset.png', bytes: pngBytes(2000) });

        const queued = page.locator('#history li.pending:has-text("Written offline")');
        await queued.locator('.outbox-state:text-is("queued")').waitFor();
        expect(await queued.locator('.attachments').textContent()).to.contain('sunset.png');
        await screenshot(page, 'window-offline');

        await service.goOnline();
        await page.click('#try-again');
        await page.locator('#history li.message[data-message-id]:has-text("Written offline")').waitFor();
        await page.locator('#history [data-outbox-key]').waitFor({ state: 'detached' });
        await page.locator('#offline-banner').waitFor({ state: 'hidden' });
        expect(await bodiesOnServer(service.server, groupId)).to.equal(['Photos from the beach', 'Written offline']);
        // It tried, then waited; once online it uploaded again.
        const states = await outboxStates();
        const waited = states.indexOf('queued');
        expect(waited).to.be.at.least(0);
        expect(states.slice(waited).some((state) => /^uploading \d+%$/.test(state)), states.join(', ')).to.be.true();
    });

    it('shows a refused message where it was written, with its reason, and retries, edits or discards it', async () => {

        await conversationButton(directId).click();
        await page.waitForSelector('#history li.message:has-text("See you there")');
        await blockUser(messaging(), actorOf(bob.user), alice.user.id);

        await compose('Can I still come?');
        const card = page.locator('#history li.conflict:has-text("Can I still come?")');
        await card.waitFor();
        expect(await card.locator('.conflict-reason').textContent()).to.equal('Not sent: one of you has blocked the other in this conversation.');
        expect(await card.locator('.conflict-actions button').allTextContents()).to.equal(['Retry', 'Edit', 'Discard']);
        expect(await card.locator('.conflict-edit').isHidden()).to.be.true();
        expect(await card.evaluate((node) => node.previousElementSibling!.textContent)).to.contain('See you there');
        expect(await page.locator('#history [data-outbox-key]').count()).to.equal(0);
        await screenshot(page, 'window-conflict');

        // Still blocked: a retry is refused again, and the item stays as it was.
        const retried = page.waitForResponse((response) => response.url().endsWith('/resolve'));
        const shownAfter = page.waitForResponse((response) => response.url().endsWith(`/api/conversations/${directId}`));
        await card.locator('button[data-action="retry"]').click();
        expect((await retried).status()).to.equal(200);
        await shownAfter;
        expect(await card.count()).to.equal(1);

        await unblockUser(messaging(), actorOf(bob.user), alice.user.id);
        await card.locator('button[data-action="retry"]').click();
        await card.waitFor({ state: 'detached' });
        await page.locator('#history li.message[data-message-id]:has-text("Can I still come?")').waitFor();

        // Edited: sent with the new text.
        await blockUser(messaging(), actorOf(bob.user), alice.user.id);
        await compose('Lunch at one?');
        const second = page.locator('#history li.conflict:has-text("Lunch at one?")');
        await second.waitFor();
        await unblockUser(messaging(), actorOf(bob.user), alice.user.id);
        await second.locator('button[data-action="edit"]').click();
        await second.locator('textarea').fill('Lunch at half past one?');
        await second.locator('button:text-is("Send edited")').click();
        await second.waitFor({ state: 'detached' });
        await page.locator('#history li.message[data-message-id]:has-text("Lunch at half past one?")').waitFor();

        // Discarded: nothing is sent.
        await blockUser(messaging(), actorOf(bob.user), alice.user.id);
        await compose('Never mind');
        const third = page.locator('#history li.conflict:has-text("Never mind")');
        await third.waitFor();
        await third.locator('button[data-action="discard"]').click();
        await third.waitFor({ state: 'detached' });
        expect(await bodiesOnServer(service.server, directId)).to.equal(['Are you coming on Sunday?', '<b>Bring</b> the photos', 'See you there', 'Can I still come?', 'Lunch at half past one?']);
        expect(await client.store.conflicts({ status: 'open' })).to.equal([]);
    });
});
