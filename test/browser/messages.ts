import Fs from 'fs';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';

import { createFamily } from '../../lib/accounts/families';
import { createGroup, startDirectConversation } from '../../lib/messaging/conversations';
import { sendMessage } from '../../lib/messaging/messages';
import { chromiumAndServer, chromiumAvailable, type ChromiumAndServer } from '../helpers/chromium';
import { sampleFile } from '../plugins/files/fixtures';
import { siteAccount } from '../plugins/site/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * /messages in real Chromium: a member signs in, finds the conversation waiting with its unread count, answers
 * with a file (downloaded again through its link), edits the answer, and the other person sees it; once with JavaScript off, since the pages must not need it.
 * Screenshots go to test/artifacts/, beside the other browser tests'.
 */

describe('/messages in Chromium', { skip: !chromiumAvailable, timeout: 120_000 }, () => {

    let server: Server;
    let browser: Browser;
    let base: string;
    let close: () => Promise<void>;
    let screenshot: ChromiumAndServer['screenshot'];

    before(async () => {

        ({ server, browser, base, close, screenshot } = await chromiumAndServer());
    });

    after(() => close?.());

    /** A family whose manager wrote to a member, and a group of the three, with the accounts' passwords. */
    async function familyWithConversations() {

        const family = await createFamily(server.app.services.accounts, { name: 'Browser messages family', plan: 'family' });
        const familyLongId = family.family_long_id;
        const [manager, zoe, mateo] = [
            await siteAccount(server, { role: 'manager', familyLongId }),
            await siteAccount(server, { role: 'member', familyLongId }),
            await siteAccount(server, { role: 'member', familyLongId })
        ];
        const actor = (account: typeof manager) => ({ userId: account.user.id, familyLongId, isManager: account.user.role === 'manager' });
        const { messaging } = server.app.services;
        const { conversation } = await startDirectConversation(messaging, actor(manager), zoe.user.id);
        await sendMessage(messaging, actor(manager), conversation.id, { body: 'Zoë, did you find the box with the 1956 wedding photos?' });
        const group = await createGroup(messaging, actor(mateo), 'Family reunion in Sevilla', [manager.user.id, zoe.user.id]);
        await sendMessage(messaging, actor(mateo), group.id, { body: 'I booked the patio for August 15th.' });
        return { manager, zoe, directId: conversation.id };
    }

    async function signedIn(account: { email: string; password: string }, options: BrowserContextOptions = {}): Promise<Page> {

        const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options })).newPage();
        await page.goto(`${base}/messages`);
        expect(new URL(page.url()).pathname).to.equal('/login');
        await page.fill('input[name="email"]', account.email);
        await page.fill('input[name="password"]', account.password);
        await page.click('button:has-text("Sign in")');
        await page.waitForURL(`${base}/messages`);
        return page;
    }

    for (const javaScript of [true, false]) {
        it(`signs in, opens the conversation waiting, sends an answer and edits it, which the other person sees (JavaScript ${javaScript ? 'on' : 'off'})`, async () => {

            const { manager, zoe, directId } = await familyWithConversations();
            const page = await signedIn(zoe, { javaScriptEnabled: javaScript });
            expect(await page.textContent('[data-testid="unread-total"]')).to.contain('2');
            expect(await page.isVisible(`[data-conversation-id="${directId}"] >> text=1 unread`)).to.be.true();
            expect(await page.isVisible('text=Family reunion in Sevilla')).to.be.true();
            if (javaScript) {
                await screenshot(page, 'messages-list');
            }

            await page.click(`[data-conversation-id="${directId}"]`);
            await page.waitForURL(`${base}/messages/${directId}`);
            expect(await page.isVisible('text=did you find the box with the 1956 wedding photos?')).to.be.true();
            expect(await page.textContent('[data-testid="unread-total"]')).to.contain('1');      // the group's, still unread

            await page.fill('#compose textarea[name="body"]', 'Yes, in the attic! I scanned them last night.');
            const scan = sampleFile('png', 2000);
            await page.setInputFiles('#compose input[name="files"]', { name: 'wedding 1956.png', mimeType: 'image/png', buffer: scan });
            await page.click('button:has-text("Send")');
            await page.waitForSelector('.message-own >> text=Yes, in the attic! I scanned them last night.');
            // The file is a link that downloads it, under its name, with its bytes.
            const [download] = await Promise.all([page.waitForEvent('download'), page.click('.message-own a:has-text("wedding 1956.png")')]);
            expect(download.suggestedFilename()).to.equal('wedding 1956.png');
            expect(Fs.readFileSync((await download.path())!).equals(scan)).to.be.true();

            const mine = page.locator('.message-own').last();
            await mine.locator('summary:has-text("Edit")').click();
            await mine.locator('textarea[name="body"]').fill('Yes, in the attic! They are in the gallery now.');
            await mine.locator('button:has-text("Save")').click();
            await page.waitForSelector('text=Your message is changed.');
            expect(await page.locator('.message-own').last().textContent()).to.contain('They are in the gallery now.');
            if (javaScript) {
                await screenshot(page, 'messages-conversation');
                // On a phone, one long word of a message wraps rather than widening the page.
                await page.fill('#compose textarea[name="body"]', `https://example.com/${'album'.repeat(40)}`);
                await page.click('button:has-text("Send")');
                await page.waitForSelector('text=albumalbum');
                await page.setViewportSize({ width: 375, height: 800 });
                expect(await page.evaluate('document.documentElement.scrollWidth')).to.equal(375);
                await screenshot(page, 'messages-conversation-375');
            }

            await page.context().close();

            const theirs = await signedIn(manager);
            expect(await theirs.textContent(`[data-conversation-id="${directId}"] .unread-count`)).to.equal(javaScript ? '2 unread' : '1 unread');
            await theirs.click(`[data-conversation-id="${directId}"]`);
            await theirs.waitForSelector('text=They are in the gallery now.');
            expect(await theirs.isVisible('text=· edited')).to.be.true();
            await theirs.context().close();
        });
    }

    it('says when a block stops a conversation, and shows an edit that came too late with the text as it is now', async () => {

        const { manager, zoe, directId } = await familyWithConversations();
        const page = await signedIn(manager);
        await page.goto(`${base}/messages/${directId}`);
        const mine = page.locator('.message-own').last();
        await mine.locator('summary:has-text("Edit")').click();
        await mine.locator('textarea[name="body"]').fill('Zoë, did you find the photos of the wedding in 1956?');

        // Meanwhile, in another tab, the same message is changed.
        const other = await (await browser.newContext()).newPage();
        await other.context().addCookies(await page.context().cookies());
        await other.goto(`${base}/messages/${directId}`);
        const there = other.locator('.message-own').last();
        await there.locator('summary:has-text("Edit")').click();
        await there.locator('textarea[name="body"]').fill('Zoë, where is the box with the wedding photos?');
        await there.locator('button:has-text("Save")').click();
        await other.waitForSelector('text=Your message is changed.');
        await other.context().close();

        await mine.locator('button:has-text("Save")').click();
        await page.waitForSelector('text=Not saved: the message changed since you opened the page');
        expect(await page.textContent('[data-testid="current-text"]')).to.equal('Zoë, where is the box with the wedding photos?');
        expect(await page.inputValue('.callout-warning textarea[name="body"]')).to.equal('Zoë, did you find the photos of the wedding in 1956?');
        await screenshot(page, 'messages-stale-edit');
        await page.click('button:has-text("Save my text instead")');
        await page.waitForSelector('text=Your message is changed.');

        await page.click('.member >> button:has-text("Block")');
        await page.waitForSelector('text=Blocked. They cannot start a conversation with you');
        expect(await page.isVisible('#compose')).to.be.false();
        expect(await page.textContent('[data-testid="blocked-notice"]')).to.contain('You have blocked this person');
        await page.context().close();

        const theirs = await signedIn(zoe);
        await theirs.goto(`${base}/messages/${directId}`);
        expect(await theirs.textContent('[data-testid="blocked-notice"]')).to.contain('This person does not accept your messages');
        expect(await theirs.isVisible('text=Zoë, did you find the photos of the wedding in 1956?')).to.be.true();
        await screenshot(theirs, 'messages-blocked');
        await theirs.context().close();
    });
});
