import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';

import { createFamily } from '../../lib/accounts/families';
import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { desktopClient, oauthClientServer } from '../helpers/devices';
import { siteAccount } from '../plugins/site/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * The whole device sign-in as a person does it: a standard OAuth client library nobody here wrote (openid-client)
 * asks for a code and polls, while the person signs in and approves on the real /device page in Chromium.
 */

describe('connecting a device through /device in Chromium, with openid-client', { skip: !chromiumAvailable, timeout: 120_000 }, () => {

    let server: Server;
    let browser: Browser;
    let baseUrl: string;

    before(async () => {

        ({ server, baseUrl } = await oauthClientServer());
        browser = await launchChromium();
    });

    after(async () => {

        await browser?.close();
        await server?.stop();
    });

    it('discovers, asks, is approved on the page after signing in, calls /messaging/v1/me, and revokes', async () => {

        const family = await createFamily(server.app.services.accounts, { name: 'Device sign-in family', plan: 'family' });
        const member = await siteAccount(server, { role: 'member', familyLongId: family.family_long_id });
        const config = await client.discovery(new URL(baseUrl), desktopClient, undefined, client.None(), { algorithm: 'oauth2', execute: [client.allowInsecureRequests] });
        const started = await client.initiateDeviceAuthorization(config, { scope: 'profile messages:read', device_name: 'Living-room desktop' });
        const polling = client.pollDeviceAuthorizationGrant(config, started);

        const page = await (await browser.newContext()).newPage();
        await page.goto(started.verification_uri_complete!);
        expect(new URL(page.url()).pathname).to.equal('/login');
        await page.fill('input[name="email"]', member.email);
        await page.fill('input[name="password"]', member.password);
        await page.click('button:has-text("Sign in")');
        await page.waitForURL(`${baseUrl}/device?user_code=${started.user_code}`);
        expect(await page.textContent('h1 .device-name')).to.equal('Living-room desktop');
        await page.click('button:has-text("Approve")');
        await page.waitForSelector('text=Return to your device');
        await page.context().close();

        const tokens = await polling;
        expect(tokens.scope).to.equal('profile messages:read');
        const me = (accessToken: string) => fetch(`${baseUrl}/messaging/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
        const answer = await me(tokens.access_token);
        expect(answer.status).to.equal(200);
        expect(((await answer.json()) as { user: { email: string } }).user.email).to.equal(member.email);

        await client.tokenRevocation(config, tokens.refresh_token!);
        expect((await me(tokens.access_token)).status).to.equal(401);
    });
});
