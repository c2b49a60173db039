import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { discover, normalizeServerUrl, OAuthError, OfflineError, pollForTokens, refreshTokens, requestDeviceCode, revokeToken, type ServerMetadata } from 'family-records-desktop';

import { approveDeviceRequest, denyDeviceRequest } from '../../lib/accounts/devices';
import { familyMember, oauthClientServer } from '../helpers/devices';
import { freePort } from '../helpers/ports';
import { testVariant } from '../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`the desktop SDK's sign-in: discovery and the device flow against the service (${testVariant})`, () => {

    let server: Server;
    let baseUrl: string;
    let metadata: ServerMetadata;

    before(async () => {

        ({ server, baseUrl } = await oauthClientServer());
        metadata = await discover(baseUrl);
    });

    after(() => server.stop());

    const me = async (accessToken: string) => {

        const answer = await fetch(`${baseUrl}/messaging/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
        return { status: answer.status, body: await answer.json() as any };
    };

    it('normalizes a server address: origin and path without a trailing slash, https unless loopback or allowed', () => {

        expect(normalizeServerUrl(' https://Records.Example.com/ ')).to.equal('https://records.example.com');
        expect(normalizeServerUrl('records.example.com/family/')).to.equal('https://records.example.com/family');
        expect(normalizeServerUrl('http://127.0.0.1:3000')).to.equal('http://127.0.0.1:3000');
        expect(normalizeServerUrl('http://localhost:3000/')).to.equal('http://localhost:3000');
        expect(normalizeServerUrl('http://[::1]:3000')).to.equal('http://[::1]:3000');
        expect(normalizeServerUrl('http://records.lan', { allowInsecure: true })).to.equal('http://records.lan');
        expect(() => normalizeServerUrl('http://records.example.com')).to.throw(/plain http: use https/);
        expect(() => normalizeServerUrl('ftp://records.example.com')).to.throw(/not an http\(s\) address/);
        expect(() => normalizeServerUrl('https://ann:secret@records.example.com')).to.throw(/user name or password/);
        expect(() => normalizeServerUrl('https://records.example.com/?next=1')).to.throw(/query or fragment/);
        expect(() => normalizeServerUrl('https://')).to.throw(/not a URL/);
        expect(() => normalizeServerUrl('  ')).to.throw(/empty/);
    });

    it('discovers the endpoints, checks the issuer, and says offline for an address nothing answers', async () => {

        expect(metadata).to.include({ issuer: baseUrl, token_endpoint: `${baseUrl}/oauth/token`, device_authorization_endpoint: `${baseUrl}/oauth/device/code`, revocation_endpoint: `${baseUrl}/oauth/revoke` });
        expect(metadata.scopes_supported).to.include(['profile', 'messages:read', 'messages:write', 'files:write']);
        await expect(discover(baseUrl.replace('127.0.0.1', 'localhost'))).to.reject(/names another issuer/);
        await expect(discover(`http://127.0.0.1:${await freePort()}`)).to.reject(OfflineError);
    });

    it('asks for a code, polls through authorization_pending until approved, then refreshes (a new refresh token each time) and revokes', async () => {

        const user = await familyMember(server);
        const code = await requestDeviceCode(metadata, { deviceName: 'Kitchen laptop', scope: 'profile messages:read' });
        expect(code.user_code).to.match(/^[B-DF-HJ-NP-TV-Z]{4}-[B-DF-HJ-NP-TV-Z]{4}$/);
        expect(code.verification_uri).to.equal(`${baseUrl}/device`);
        expect(code.interval).to.equal(1);

        let pending = 0;
        const tokens = await pollForTokens(metadata, code, {
            onPending() {

                // The first poll finds it pending: the user approves only now.
                if (pending++ === 0) {
                    void approveDeviceRequest(server.app.services.accounts, code.user_code, user);
                }
            }
        });
        expect(pending).to.be.at.least(1);
        expect(tokens.scope).to.equal('profile messages:read');
        expect(tokens.access_token).to.startWith('frd_');
        expect(tokens.refresh_token).to.startWith('frr_');
        expect(tokens.expires_at).to.be.within(Date.now() + 590_000, Date.now() + 600_000);
        const answered = await me(tokens.access_token);
        expect(answered.status).to.equal(200);
        expect(answered.body.device.name).to.equal('Kitchen laptop');
        expect(answered.body.user.id).to.equal(user.id);

        const refreshed = await refreshTokens(metadata, tokens.refresh_token);
        expect(refreshed.refresh_token).to.not.equal(tokens.refresh_token);
        expect(refreshed.access_token).to.not.equal(tokens.access_token);
        const again = await refreshTokens(metadata, refreshed.refresh_token);
        expect((await me(again.access_token)).status).to.equal(200);

        await revokeToken(metadata, again.refresh_token);
        expect((await me(again.access_token)).status).to.equal(401);
        const refused = await expect(refreshTokens(metadata, again.refresh_token)).to.reject(OAuthError);
        expect(refused.error).to.equal('invalid_grant');
    });

    it('ends the poll with access_denied when the user denies the device', async () => {

        const user = await familyMember(server);
        const code = await requestDeviceCode(metadata, { deviceName: 'Unknown laptop' });
        await denyDeviceRequest(server.app.services.accounts, code.user_code, user);
        const denied = await expect(pollForTokens(metadata, code)).to.reject(OAuthError);
        expect(denied.error).to.equal('access_denied');
    });

    it('stops polling when its signal aborts', async () => {

        const code = await requestDeviceCode(metadata, { deviceName: 'Abandoned laptop' });
        const controller = new AbortController();
        const polling = pollForTokens(metadata, code, { signal: controller.signal, onPending: () => controller.abort() });
        await expect(polling).to.reject(/aborted/);
    });
});
