import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as client from 'openid-client';

import { approveDeviceRequest, denyDeviceRequest } from '../../../lib/accounts/devices';
import { desktopClient, familyMember, oauthClientServer } from '../../helpers/devices';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * The whole flow through a standard OAuth client library nobody here wrote (openid-client, over real HTTP):
 * if the endpoints said anything their RFCs do not, it would stop here.
 */

describe('connecting a device with openid-client', () => {

    let server: Server;
    let baseUrl: string;
    let config: client.Configuration;
    const answers: Response[] = [];

    before(async () => {

        ({ server, baseUrl } = await oauthClientServer());

        // Every answer the client gets, to check what it never receives.
        const recordingFetch: typeof fetch = async (...args) => {

            const response = await fetch(...args);
            answers.push(response.clone());
            return response;
        };

        config = await client.discovery(new URL(baseUrl), desktopClient, undefined, client.None(), {
            algorithm: 'oauth2',
            execute: [client.allowInsecureRequests],
            [client.customFetch]: recordingFetch
        });
    });

    after(() => server.stop());

    const me = (accessToken: string) => fetch(`${baseUrl}/messaging/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });

    it('discovers the server, connects, calls /messaging/v1/me, refreshes and revokes', async () => {

        const user = await familyMember(server);
        const started = await client.initiateDeviceAuthorization(config, { scope: 'profile messages:read', device_name: 'Test desktop' });
        expect(started.user_code).to.match(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
        expect(started.verification_uri).to.equal(`${baseUrl}/device`);

        const polling = client.pollDeviceAuthorizationGrant(config, started);
        await new Promise((resolve) => setTimeout(resolve, 1500));        // a poll or two answered authorization_pending first
        const grant = await approveDeviceRequest(server.app.services.accounts, started.user_code, user);
        const tokens = await polling;
        expect(tokens.token_type).to.equal('bearer');
        expect(tokens.scope).to.equal('profile messages:read');
        expect(tokens.expiresIn()!).to.be.within(590, 600);

        const answer = await me(tokens.access_token);
        expect(answer.status).to.equal(200);
        const body = await answer.json() as Record<string, any>;
        expect(body).to.include({ user: { id: user.id, email: user.email }, scopes: ['profile', 'messages:read'] });
        expect(body.device).to.equal({ id: grant.id, name: 'Test desktop', client_id: desktopClient });
        expect(body.family.id).to.equal(user.family_long_id);
        expect(Date.parse(body.token_expires_at)).to.be.above(Date.now());

        const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
        expect(refreshed.refresh_token).to.not.equal(tokens.refresh_token);
        expect((await me(refreshed.access_token)).status).to.equal(200);

        await client.tokenRevocation(config, refreshed.refresh_token!);
        expect((await me(refreshed.access_token)).status).to.equal(401);
        const error = await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).to.reject();
        expect((error as client.ResponseBodyError).error).to.equal('invalid_grant');
    });

    it('reports a denied request as access_denied', async () => {

        const started = await client.initiateDeviceAuthorization(config, {});
        await denyDeviceRequest(server.app.services.accounts, started.user_code, await familyMember(server));
        const error = await expect(client.pollDeviceAuthorizationGrant(config, started)).to.reject();
        expect((error as client.ResponseBodyError).error).to.equal('access_denied');
    });

    it('revokes with the access token too', async () => {

        const started = await client.initiateDeviceAuthorization(config, {});
        await approveDeviceRequest(server.app.services.accounts, started.user_code, await familyMember(server));
        const tokens = await client.pollDeviceAuthorizationGrant(config, started);
        await client.tokenRevocation(config, tokens.access_token, { token_type_hint: 'access_token' });
        expect((await me(tokens.access_token)).status).to.equal(401);
    });

    it('never hands the client a password, a second factor, a site session cookie or a database credential', async () => {

        const user = await server.app.services.models.User.findOne({ where: {}, order: [['created_at', 'ASC']] });
        const secrets = [user!.password_hash, server.app.services.config.databaseUrl, 'totp', 'recovery', 'password', 'secret'];
        expect(answers.length).to.be.above(5);
        for (const answer of answers) {
            expect(answer.headers.get('set-cookie'), answer.url).to.be.null();
            const text = await answer.text();
            for (const secret of secrets) {
                expect(text.toLowerCase(), `${answer.url} answered ${text}`).to.not.include(secret.toLowerCase());
            }
        }
    });
});
