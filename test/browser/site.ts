
import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import type { Browser, Page } from 'playwright-core';

import { createFamily, enableApi, suspendFamily } from '../../lib/accounts/families';
import { createApiKey } from '../../lib/accounts/api-keys';
import { chromiumAndServer, chromiumAvailable, type ChromiumAndServer } from '../helpers/chromium';
import { scriptedResolver } from '../plugins/webhooks/helpers/setup';
import { appCode, siteAccount } from '../plugins/site/client';
import { deviceAsking, poll, stillConnected } from '../plugins/site/device-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * The hosted site in real Chromium (Debian's, installed by .ci/run): what a family
 * manager and a super-admin do, clicked through as they would, with the API answering
 * the key the page showed. Screenshots of the main pages go to test/artifacts/<variant>/
 * (the variants run at once).
 */

describe('hosted site in Chromium', { skip: !chromiumAvailable, timeout: 120_000 }, () => {

    let server: Server;
    let browser: Browser;
    let base: string;
    let close: () => Promise<void>;
    let screenshot: ChromiumAndServer['screenshot'];

    before(async () => {

        ({ server, browser, base, close, screenshot } = await chromiumAndServer());
    });

    after(() => close?.());

    async function newPage(): Promise<Page> {

        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        return context.newPage();
    }

    async function signIn(page: Page, email: string, password: string): Promise<void> {

        await page.goto(`${base}/login`);
        await page.fill('input[name="email"]', email);
        await page.fill('input[name="password"]', password);
        await page.click('button:has-text("Sign in")');
    }

    /** A manager of a new family on the Family plan, signed in on a page of their own, at their start page. */
    async function signedInManager(familyName: string) {

        const family = await createFamily(server.app.services.accounts, { name: familyName, plan: 'family' });
        const manager = await siteAccount(server, { role: 'manager', familyLongId: family.family_long_id });
        const page = await newPage();
        await signIn(page, manager.email, manager.password);
        await page.waitForURL(`${base}/manage/apis`);
        return { manager, page };
    }

    /** A signed-in manager's page, and an endpoint of the family's at a public address (for the destination check; nothing is delivered to it). */
    async function managerWithEndpoint(familyName: string, path: string) {

        const { manager, page } = await signedInManager(familyName);
        const familyLongId = manager.user.family_long_id!;
        await enableApi(server.app.services.accounts, familyLongId, ['persons']);
        server.plugins.webhooks.useTestTransport({ resolve: scriptedResolver({ 'hooks.example': '93.184.216.34' }) });
        const { endpoint } = await server.plugins.webhooks.createEndpoint(familyLongId, { url: `https://hooks.example/${path}`, resources: ['persons'] }, manager.user.id);
        return { manager, page, familyLongId, endpoint };
    }

    const api = (key: string) => fetch(`${base}/api/v1/persons`, { headers: { authorization: `Bearer ${key}` } });

    it('lets a manager enable the API, create a key, read it once, use it, and revoke it', async () => {

        const family = await createFamily(server.app.services.accounts, { name: 'The Browser Family', plan: 'family' });
        const manager = await siteAccount(server, { role: 'manager', familyLongId: family.family_long_id });
        const page = await newPage();

        await page.goto(`${base}/manage/apis`);
        expect(new URL(page.url()).pathname).to.equal('/login');
        await screenshot(page, 'login');
        await signIn(page, manager.email, manager.password);
        await page.waitForURL(`${base}/manage/apis`);

        await page.check('input[name="resources"][value="persons"]');
        await page.check('input[name="resources"][value="trees"]');
        await page.click('button:has-text("Turn on API access")');
        await page.waitForSelector('text=API access is on.');

        await page.click('text=New API key');
        await page.fill('input[name="name"]', 'Browser sync');
        await page.check('input[name="resources"][value="persons"]');
        expect(await page.isChecked('input[name="operations"][value="read"]')).to.be.true();
        expect(await page.isChecked('input[name="operations"][value="create"]')).to.be.false();
        await screenshot(page, 'key-new');
        await page.click('button:has-text("Create key")');

        const key = await page.inputValue('[data-testid="new-key"]');
        expect(key).to.match(/^frk_[0-9A-Za-z]{36}$/);
        expect(await page.isVisible('text=You will not see it again.')).to.be.true();
        await screenshot(page, 'key-created');

        const listed = await api(key);
        expect(listed.status).to.equal(200);
        expect(await listed.json()).to.include({ data: [] });

        await page.click('text=Done');
        expect(await page.content()).to.not.contain(key);
        await page.waitForSelector(`text=${key.slice(0, 8)}…${key.slice(-4)}`);
        await screenshot(page, 'manage-apis');

        await page.click('a:has-text("Revoke")');
        await page.waitForSelector('text=Revoke this API key?');
        await page.click('button:has-text("Revoke key")');
        await page.waitForSelector('text=The key is revoked.');

        const refused = await api(key);
        expect(refused.status).to.equal(401);
        expect(await refused.json()).to.include({ code: 'invalid_key' });
        await page.context().close();
    });

    it('lets a manager choose to hide living relatives\' details from a key, see it in the list, and change it back to full', async () => {

        const { manager, page } = await signedInManager('The Living Browsers');
        const familyLongId = manager.user.family_long_id!;
        await enableApi(server.app.services.accounts, familyLongId, ['persons']);
        const livingPersons = async () => (await server.app.services.models.ApiKey.findOne({ where: { family_long_id: familyLongId } }))!.living_persons;

        await page.goto(`${base}/manage/apis/keys/new`);
        expect(await page.isChecked('input[name="living_persons"][value="full"]')).to.be.true();
        await page.fill('input[name="name"]', 'Public tree');
        await page.check('input[name="resources"][value="persons"]');
        await page.click('label:has-text("Hide living persons\' details")');
        await page.click('button:has-text("Create key")');
        await page.waitForSelector('[data-testid="new-key"]');
        expect(await livingPersons()).to.equal('redacted');

        await page.click('text=Done');
        await page.waitForSelector('.chip-private:has-text("living relatives hidden")');
        await page.click('a:has-text("Edit scopes")');
        expect(await page.isChecked('input[name="living_persons"][value="redacted"]')).to.be.true();
        await page.click('label:has-text("Full details")');
        await page.click('button:has-text("Save scopes")');
        await page.waitForSelector('.chip:has-text("living relatives in full")');
        expect(await livingPersons()).to.equal('full');
        await page.context().close();
    });

    it('signs in with a TOTP code after enrolling with the QR code page', async () => {

        const { manager, page } = await signedInManager('Two-factor family');

        await page.click(`a:has-text("${manager.email}")`);
        await page.click('button:has-text("Set up two-factor sign-in")');
        await page.waitForSelector('.qr svg');
        const secret = await page.textContent('[data-testid="totp-secret"]');
        await screenshot(page, 'two-factor-setup');
        await page.fill('input[name="code"]', appCode(secret!));
        await page.click('button:has-text("Turn on")');
        await page.waitForSelector('text=Save these recovery codes now.');
        expect(await page.locator('.recovery-codes li').count()).to.equal(10);
        await screenshot(page, 'recovery-codes');

        await page.click('button:has-text("Sign out")');
        await page.waitForSelector('text=You are signed out.');

        await signIn(page, manager.email, manager.password);
        await page.waitForURL(`${base}/login/two-factor`);
        await screenshot(page, 'two-factor-sign-in');
        // The code that turned it on was taken: the app's next one (the window takes a step either way).
        await page.fill('input[name="code"]', appCode(secret!, 1));
        await page.click('button:has-text("Verify")');
        await page.waitForURL(`${base}/manage/apis`);
        await page.context().close();
    });

    it('connects a device through /device after signing in, showing its hostile name as text, and disconnects it from the account page', async () => {

        const family = await createFamily(server.app.services.accounts, { name: 'Device browser family', plan: 'family' });
        const member = await siteAccount(server, { role: 'member', familyLongId: family.family_long_id });
        const deviceName = '"><img src=x onerror=alert(1)> \u202Eexe.lla';
        const asked = await deviceAsking(server, deviceName);

        const page = await newPage();
        const dialogs: string[] = [];
        page.on('dialog', (dialog) => dialogs.push(dialog.message()));
        const link = new URL(asked.verification_uri_complete);
        await page.goto(`${base}${link.pathname}${link.search}`);
        expect(new URL(page.url()).pathname).to.equal('/login');
        await page.fill('input[name="email"]', member.email);
        await page.fill('input[name="password"]', member.password);
        await page.click('button:has-text("Sign in")');
        await page.waitForURL(`${base}/device?user_code=${asked.user_code}`);

        expect(await page.textContent('h1 .device-name')).to.equal(deviceName);
        expect(await page.locator('img').count()).to.equal(0);
        expect(await page.isVisible('text=Approve only a code you started yourself')).to.be.true();
        const [approve, deny] = [await page.locator('button:has-text("Approve")').boundingBox(), await page.locator('button:has-text("Deny")').boundingBox()];
        expect([deny!.width, deny!.height]).to.equal([approve!.width, approve!.height]);
        await screenshot(page, 'device-approval');
        expect((await poll(server, asked.device_code)).body.error).to.equal('authorization_pending');

        await page.click('button:has-text("Approve")');
        await page.waitForSelector('text=Return to your device');
        const tokens = await poll(server, asked.device_code);
        expect(tokens.statusCode).to.equal(200);
        expect(await stillConnected(server, tokens.body.access_token)).to.be.true();

        await page.click('a:has-text("Connected devices")');
        expect(await page.textContent('td .device-name')).to.equal(deviceName);
        await screenshot(page, 'account-devices');
        await page.click('button:has-text("Disconnect")');
        await page.waitForSelector('text=The device is disconnected.');
        expect(await stillConnected(server, tokens.body.access_token)).to.be.false();
        expect(dialogs).to.equal([]);
        await page.context().close();
    });

    it('keeps a signed-in manager on this site when a link hides another site behind a tab in next', async () => {

        const { page } = await signedInManager('Redirect family');

        // Chromium drops the tab: `/<tab>/evil.example` would be `//evil.example`.
        const hosts: string[] = [];
        page.on('request', (request) => hosts.push(new URL(request.url()).host));
        await page.goto(`${base}/login?next=${encodeURIComponent('/\t/evil.example/sign-in')}`);
        expect(page.url()).to.equal(`${base}/manage/apis`);
        expect(hosts).to.not.include('evil.example');
        await page.context().close();
    });

    it('brings a manager whose session ended back to the form they sent, after signing in again', async () => {

        const { manager, page } = await signedInManager('Expired family');
        await page.check('input[name="resources"][value="persons"]');
        await page.click('button:has-text("Turn on API access")');
        await page.waitForSelector('text=API access is on.');
        await page.click('text=New API key');
        await page.fill('input[name="name"]', 'Late sync');

        await server.app.services.models.SiteSession.update({ expires_at: new Date(Date.now() - 1000) }, { where: { user_id: manager.user.id } });
        await page.click('button:has-text("Create key")');
        await page.waitForURL(/\/login\?next=/);
        await page.fill('input[name="email"]', manager.email);
        await page.fill('input[name="password"]', manager.password);
        await page.click('button:has-text("Sign in")');
        await page.waitForURL(`${base}/manage/apis/keys/new`);
        await page.waitForSelector('button:has-text("Create key")');
        await page.context().close();
    });

    it('takes a key name of 100 emoji typed in the form, and says in words why 101 characters are too many', async () => {

        const { page } = await signedInManager('Emoji names family');
        await page.check('input[name="resources"][value="persons"]');
        await page.click('button:has-text("Turn on API access")');
        await page.waitForSelector('text=API access is on.');

        // Each emoji is two UTF-16 units, which maxlength counts: it takes 100 of them and cuts the 101st.
        await page.click('text=New API key');
        await page.fill('input[name="name"]', '🌳'.repeat(101));
        expect(await page.inputValue('input[name="name"]')).to.equal('🌳'.repeat(100));

        // 101 characters in as many units as 100 emoji: the browser sends them, the server says why not.
        const tooLong = `${'🌳'.repeat(99)}ab`;
        await page.fill('input[name="name"]', tooLong);
        await page.check('input[name="resources"][value="persons"]');
        await page.click('button:has-text("Create key")');
        await page.waitForSelector('[role="alert"]:has-text("A key name is 1 to 100 characters.")');
        expect(await page.inputValue('input[name="name"]')).to.equal(tooLong);

        await page.fill('input[name="name"]', '🌳'.repeat(100));
        await page.check('input[name="resources"][value="persons"]');
        await page.click('button:has-text("Create key")');
        expect(await page.inputValue('[data-testid="new-key"]')).to.match(/^frk_/);
        await page.click('text=Done');
        await page.waitForSelector(`text=${'🌳'.repeat(100)}`);
        await page.context().close();
    });

    it('sends a form once when it is double-clicked: one key, not a second one never shown; one rotation, keeping the secret the receiver checks', async () => {

        const { page, familyLongId, endpoint } = await managerWithEndpoint('Double click family', 'double');
        const { ApiKey, AuditEvent, WebhookEndpoint } = server.app.services.models;
        // A slow answer, as over a real network: the second click comes while the first form is on its way.
        const sent: string[] = [];
        await page.route(/\/(keys|rotate)$/, async (route) => {

            sent.push(new URL(route.request().url()).pathname);
            await new Promise((resolve) => setTimeout(resolve, 300));
            await route.continue().catch(() => undefined);          // the browser may have dropped it for the second
        });
        // The mouse, as a person clicks: a locator's click would wait for the first form's page.
        const clickTwice = async (button: string) => {

            const box = (await page.locator(button).boundingBox())!;
            await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
            await page.waitForTimeout(100);
            await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        };

        await page.goto(`${base}/manage/apis/keys/new`);
        await page.fill('input[name="name"]', 'Clicked twice');
        await page.check('input[name="resources"][value="persons"]');
        await clickTwice('button:has-text("Create key")');
        await page.waitForSelector('[data-testid="new-key"]');
        await page.waitForLoadState('networkidle');
        expect(sent).to.equal(['/manage/apis/keys']);
        expect(await ApiKey.count({ where: { family_long_id: familyLongId } })).to.equal(1);

        await page.goto(`${base}/manage/apis/webhooks/${endpoint.id}`);
        await clickTwice('button:has-text("Rotate secret")');
        await page.waitForSelector('[data-testid="webhook-secret"]');
        await page.waitForLoadState('networkidle');
        expect(sent).to.equal(['/manage/apis/keys', `/manage/apis/webhooks/${endpoint.id}/rotate`]);
        expect(await AuditEvent.count({ where: { action: 'webhook.rotate_secret', target: endpoint.id } })).to.equal(1);
        const rotated = (await WebhookEndpoint.findByPk(endpoint.id))!;
        expect(rotated.previous_secret_encrypted).to.equal(endpoint.secret_encrypted);

        // A form sent once can be sent again from the next page: the guard is per page.
        await page.click('text=Done');
        await page.click('button:has-text("Disable")');
        await page.waitForSelector('text=The endpoint is disabled');
        await page.context().close();
    });

    it('answers a webhook endpoint deleted from a second tab with the notice that it is deleted', async () => {

        const { page, endpoint } = await managerWithEndpoint('Two tabs family', 'family');

        const second = await page.context().newPage();
        for (const tab of [page, second]) {
            await tab.goto(`${base}/manage/apis/webhooks/${endpoint.id}`);
            await tab.click('a:has-text("Delete")');
            await tab.waitForSelector('text=Delete this webhook endpoint?');
        }

        for (const tab of [page, second]) {
            await tab.click('button:has-text("Delete endpoint")');
            await tab.waitForURL(`${base}/manage/apis?notice=webhook-deleted`);
            await tab.waitForSelector('text=The endpoint is deleted.');
            expect(await tab.isVisible('text=No webhook endpoints yet.')).to.be.true();
        }

        await screenshot(second, 'webhook-deleted-twice');
        const entries = await server.app.services.models.AuditEvent.findAll({ where: { action: 'webhook.delete', target: endpoint.id } });
        expect(entries.map((entry) => entry.detail)).to.equal(['https://hooks.example/family']);
        await page.context().close();
    });

    it('keeps pages within the window, wide and narrow, when what people typed is one long word', async () => {

        const { accounts } = server.app.services;
        const family = await createFamily(accounts, { name: 'Long words family', plan: 'family' });
        // A short address leaves room beside it in the top bar, where the main navigation must not squeeze in.
        const manager = await siteAccount(server, { role: 'manager', familyLongId: family.family_long_id, email: `lw-${Date.now() % 1000}@example.com` });
        const page = await newPage();
        await signIn(page, manager.email, manager.password);
        await page.check('input[name="resources"][value="persons"]');
        await page.click('button:has-text("Turn on API access")');
        await page.waitForSelector('text=API access is on.');
        const longWord = `<b>שלום</b>👨‍👩‍👧${'W'.repeat(80)}`;
        await createApiKey(accounts, { familyLongId: family.family_long_id, name: longWord, resources: ['persons'], createdBy: manager.user.id });
        await suspendFamily(accounts, family.family_long_id, `Reason${'R'.repeat(400)}`, 'test');

        const pageWidth = () => page.evaluate('document.documentElement.scrollWidth');
        for (const width of [1280, 375]) {
            await page.setViewportSize({ width, height: 800 });
            await page.goto(`${base}/manage/apis`);
            expect(await pageWidth()).to.equal(width);
            if (width === 1280) {
                const revoke = await page.locator('a:has-text("Revoke")').first().boundingBox();        // the key's actions stay in sight
                expect(revoke!.x + revoke!.width).to.be.at.most(width);
            }
            else {
                const navigation = await page.locator('.mainnav').boundingBox();                      // a row of its own on a phone
                expect(navigation!.width).to.equal(width - 2 * 24);
            }

            await screenshot(page, `manage-apis-long-words-${width}`);
        }

        await page.context().close();
    });

    it('lets a super-admin read the usage chart and suspend a family, and the API answers family_suspended', async () => {

        const family = await createFamily(server.app.services.accounts, { name: 'Suspended family', plan: 'max' });
        const manager = await siteAccount(server, { role: 'manager', familyLongId: family.family_long_id });
        const admin = await siteAccount(server, { role: 'super-admin' });

        const managerPage = await newPage();
        await signIn(managerPage, manager.email, manager.password);
        await managerPage.waitForURL(`${base}/manage/apis`);
        await managerPage.check('input[name="resources"][value="persons"]');
        await managerPage.click('button:has-text("Turn on API access")');
        await managerPage.click('text=New API key');
        await managerPage.fill('input[name="name"]', 'Reporting');
        await managerPage.check('input[name="resources"][value="persons"]');
        await managerPage.click('button:has-text("Create key")');
        const key = await managerPage.inputValue('[data-testid="new-key"]');
        for (let request = 0; request < 5; ++request) {
            expect((await api(key)).status).to.equal(200);
        }

        await server.app.services.usageMeter.flush();

        const page = await newPage();
        await signIn(page, admin.email, admin.password);
        await page.waitForURL(`${base}/admin/apis`);
        await page.fill('input[name="q"]', 'Suspended family');
        await page.click('button:has-text("Search")');
        await page.waitForSelector('text=1 family');
        await screenshot(page, 'admin-families');
        await page.click('a:has-text("Suspended family")');

        const chart = page.locator('svg.chart').first();
        await chart.waitFor();
        const box = await chart.boundingBox();
        expect(box!.width).to.be.above(500);
        expect(box!.height).to.be.above(150);
        expect(await chart.locator('rect[fill="#2da44e"]').count()).to.be.at.least(1);
        expect(await chart.locator('title').first().textContent()).to.contain('Requests per day by status class');
        await screenshot(page, 'admin-family-usage');

        await page.fill('input[name="reason"]', 'Too many requests at night');
        await page.click('button:has-text("Suspend API")');
        await page.waitForSelector('text=The family\'s API is suspended.');

        const refused = await api(key);
        expect(refused.status).to.equal(403);
        expect(await refused.json()).to.include({ code: 'family_suspended' });

        await managerPage.goto(`${base}/manage/apis`);
        await managerPage.waitForSelector('text=Reason: Too many requests at night');

        await page.click('text=Audit log');
        await page.waitForSelector('td >> text=Suspended a family\'s API');
        await screenshot(page, 'admin-audit');
        await page.context().close();
        await managerPage.context().close();
    });
});
