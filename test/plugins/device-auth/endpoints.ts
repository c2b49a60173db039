import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { Op } from 'sequelize';

import { approveDeviceRequest, denyDeviceRequest, normalizeUserCode } from '../../../lib/accounts/devices';
import { editPolicyFile } from '../../helpers/policy-files';
import { connectedDevice, desktopClient, deviceCodeGrant, familyMember, getMe, postForm } from '../../helpers/devices';
import { copyPolicies, testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('the OAuth endpoints of connected devices', () => {

    let server: Server;

    before(async () => {

        // More OAuth requests from one address than the shipped limit lets through: the last test checks the limit.
        const policiesDir = copyPolicies();
        editPolicyFile(policiesDir, 'messaging.yaml', 'limit: 60', 'limit: 1000000');
        server = await testServer({ policiesDir, env: { PUBLIC_BASE_URL: 'https://records.example' } });
    });

    after(() => server.stop());

    const start = async (fields: Record<string, string> = {}) => (await postForm(server, '/oauth/device/code', { client_id: desktopClient, ...fields })).result as Record<string, string>;
    const poll = (deviceCode: string, clientId = desktopClient) => postForm(server, '/oauth/token', { grant_type: deviceCodeGrant, client_id: clientId, device_code: deviceCode });
    const refresh = (refreshToken: string) => postForm(server, '/oauth/token', { grant_type: 'refresh_token', client_id: desktopClient, refresh_token: refreshToken });
    const requestOf = (userCode: string) => server.app.services.models.DeviceRequest.findOne({ where: { user_code: normalizeUserCode(userCode)! } });

    describe('GET /.well-known/oauth-authorization-server', () => {

        it('describes the endpoints, grants and scopes (RFC 8414)', async () => {

            const response = await server.inject('/.well-known/oauth-authorization-server');
            expect(response.statusCode).to.equal(200);
            expect(response.result).to.equal({
                issuer: 'https://records.example',
                device_authorization_endpoint: 'https://records.example/oauth/device/code',
                token_endpoint: 'https://records.example/oauth/token',
                revocation_endpoint: 'https://records.example/oauth/revoke',
                grant_types_supported: [deviceCodeGrant, 'refresh_token'],
                response_types_supported: [],
                token_endpoint_auth_methods_supported: ['none'],
                revocation_endpoint_auth_methods_supported: ['none'],
                scopes_supported: ['profile', 'messages:read', 'messages:write', 'files:write']
            });
        });
    });

    describe('POST /oauth/device/code', () => {

        it('answers a device code, a user code to show and where to enter it, uncached', async () => {

            const response = await postForm(server, '/oauth/device/code', { client_id: desktopClient, scope: 'profile messages:read', device_name: 'Study PC' });
            expect(response.statusCode).to.equal(200);
            expect(response.headers['cache-control']).to.equal('no-store');
            const answer = response.result as Record<string, unknown>;
            expect(Object.keys(answer).sort()).to.equal(['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);
            expect(answer.device_code).to.match(/^[0-9A-Za-z]{43}$/);
            expect(answer.user_code).to.match(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
            expect(answer).to.include({ verification_uri: 'https://records.example/device', verification_uri_complete: `https://records.example/device?user_code=${answer.user_code}`, expires_in: 900, interval: 5 });

            const stored = await requestOf(answer.user_code as string);
            expect(stored!.device_code_hash).to.match(/^[0-9a-f]{64}$/);
            expect(JSON.stringify(stored!.toJSON())).to.not.include(answer.device_code as string);
            expect(stored!.toJSON()).to.include({ device_name: 'Study PC', scopes: ['profile', 'messages:read'] });
        });

        it('refuses an unknown or missing client with invalid_client, an unknown scope with invalid_scope', async () => {

            const unknown = await postForm(server, '/oauth/device/code', { client_id: 'someone-else' });
            expect(unknown.statusCode).to.equal(401);
            expect(unknown.result).to.equal({ error: 'invalid_client', error_description: 'Unknown client_id.' });
            expect(unknown.headers['cache-control']).to.equal('no-store');

            const missing = await postForm(server, '/oauth/device/code', {});
            expect(missing.statusCode).to.equal(401);
            expect(missing.result).to.include({ error: 'invalid_client' });

            const scope = await postForm(server, '/oauth/device/code', { client_id: desktopClient, scope: 'profile admin' });
            expect(scope.statusCode).to.equal(400);
            expect(scope.result).to.equal({ error: 'invalid_scope', error_description: 'This client may ask for profile, messages:read, messages:write, files:write; not: admin.' });
        });

        it('refuses JSON, a parameter sent twice and a device name too long with invalid_request, never a 500', async () => {

            const json = await server.inject({ method: 'POST', url: '/oauth/device/code', payload: { client_id: desktopClient } });
            expect(json.statusCode).to.equal(415);
            expect(json.result).to.include({ error: 'invalid_request' });

            const twice = await server.inject({ method: 'POST', url: '/oauth/device/code', payload: 'client_id=family-records-desktop&client_id=other', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
            expect(twice.statusCode).to.equal(400);
            expect(twice.result).to.include({ error: 'invalid_request' });

            const long = await postForm(server, '/oauth/device/code', { client_id: desktopClient, device_name: 'x'.repeat(101) });
            expect(long.statusCode).to.equal(400);
            expect(long.result).to.equal({ error: 'invalid_request', error_description: 'A device_name is at most 100 characters.' });
        });
    });

    describe('POST /oauth/token with the device code grant', () => {

        it('answers authorization_pending, then slow_down adding 5 s for every poll too early', async () => {

            const { device_code: deviceCode, user_code: userCode } = await start();
            const first = await poll(deviceCode);
            expect(first.statusCode).to.equal(400);
            expect(first.result).to.equal({ error: 'authorization_pending', error_description: 'The user has not approved this device yet.' });
            expect(first.headers['cache-control']).to.equal('no-store');

            const early = await poll(deviceCode);
            expect(early.result).to.equal({ error: 'slow_down', error_description: 'Polled too early: wait at least 10 seconds between polls.' });
            const earlier = await poll(deviceCode);
            expect(earlier.result).to.include({ error: 'slow_down', error_description: 'Polled too early: wait at least 15 seconds between polls.' });

            // A poll after the interval that slow_down set is pending again, and the interval stays.
            await server.app.services.models.DeviceRequest.update({ last_polled_at: new Date(Date.now() - 15_000) }, { where: { user_code: normalizeUserCode(userCode)! } });
            expect((await poll(deviceCode)).result).to.include({ error: 'authorization_pending' });
            expect((await requestOf(userCode))!.interval_seconds).to.equal(15);
        });

        it('answers the tokens once approved, then invalid_grant for the same device code', async () => {

            const user = await familyMember(server);
            const { device_code: deviceCode, user_code: userCode } = await start({ scope: 'profile' });
            await approveDeviceRequest(server.app.services.accounts, userCode, user);
            const answer = await poll(deviceCode);
            expect(answer.statusCode).to.equal(200);
            expect(answer.headers['cache-control']).to.equal('no-store');
            expect(answer.headers.pragma).to.equal('no-cache');
            const tokens = answer.result as Record<string, unknown>;
            expect(Object.keys(tokens).sort()).to.equal(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
            expect(tokens).to.include({ token_type: 'Bearer', expires_in: 600, scope: 'profile' });
            expect(tokens.access_token).to.match(/^frd_[0-9A-Za-z]{36}$/);
            expect(tokens.refresh_token).to.match(/^frr_[0-9A-Za-z]{36}$/);

            const again = await poll(deviceCode);
            expect(again.statusCode).to.equal(400);
            expect(again.result).to.equal({ error: 'invalid_grant', error_description: 'This device_code was exchanged already.' });
        });

        it('answers access_denied for a denied request', async () => {

            const { device_code: deviceCode, user_code: userCode } = await start();
            await denyDeviceRequest(server.app.services.accounts, userCode, await familyMember(server));
            expect((await poll(deviceCode)).result).to.include({ error: 'access_denied' });
        });

        it('answers expired_token after 900 s, approved or not', async () => {

            const { device_code: deviceCode, user_code: userCode } = await start();
            await server.app.services.models.DeviceRequest.update({ expires_at: new Date(Date.now() - 1) }, { where: { user_code: normalizeUserCode(userCode)! } });
            expect((await poll(deviceCode)).result).to.include({ error: 'expired_token' });
        });

        it('answers invalid_grant for an unknown device code or one of another client, invalid_request without one', async () => {

            const { device_code: deviceCode } = await start();
            expect((await poll('x'.repeat(43))).result).to.include({ error: 'invalid_grant' });
            expect((await postForm(server, '/oauth/token', { grant_type: deviceCodeGrant, client_id: desktopClient })).result).to.include({ error: 'invalid_request' });
            const other = await poll(deviceCode, 'another-client');
            expect(other.statusCode).to.equal(401);
            expect(other.result).to.include({ error: 'invalid_client' });
        });

        it('answers unsupported_grant_type for a grant it does not take, invalid_request without one', async () => {

            const password = await postForm(server, '/oauth/token', { grant_type: 'password', client_id: desktopClient, username: 'a', password: 'b' });
            expect(password.result).to.equal({ error: 'unsupported_grant_type', error_description: `This server takes grant_type ${deviceCodeGrant} or refresh_token.` });
            expect((await postForm(server, '/oauth/token', { grant_type: 'constructor', client_id: desktopClient })).result).to.include({ error: 'unsupported_grant_type' });
            expect((await postForm(server, '/oauth/token', { client_id: desktopClient })).result).to.include({ error: 'invalid_request' });
        });
    });

    describe('POST /oauth/token with the refresh grant', () => {

        it('rotates the refresh token on every use; the old one again within the grace gets the same pair back', async () => {

            const first = await connectedDevice(server, await familyMember(server));
            const second = await refresh(first.refresh_token);
            expect(second.statusCode).to.equal(200);
            const pair = second.result as Record<string, string>;
            expect(pair.refresh_token).to.not.equal(first.refresh_token);
            expect(pair.access_token).to.not.equal(first.access_token);

            const lost = await refresh(first.refresh_token);
            expect(lost.statusCode).to.equal(200);
            expect((lost.result as Record<string, string>).access_token).to.equal(pair.access_token);
            expect((lost.result as Record<string, string>).refresh_token).to.equal(pair.refresh_token);
            expect((await getMe(server, pair.access_token)).statusCode).to.equal(200);

            const third = await refresh(pair.refresh_token);
            expect(third.statusCode).to.equal(200);
        });

        it('gives two refreshes at once the same pair', async () => {

            const first = await connectedDevice(server, await familyMember(server));
            const answers = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)]);
            expect(answers.map((answer) => answer.statusCode)).to.equal([200, 200]);
            const [one, other] = answers.map((answer) => answer.result as Record<string, string>);
            expect(one.access_token).to.equal(other.access_token);
            expect(one.refresh_token).to.equal(other.refresh_token);
        });

        it('revokes the whole grant when a rotated refresh token comes back after the grace, or an older one at all', async () => {

            const first = await connectedDevice(server, await familyMember(server));
            const second = (await refresh(first.refresh_token)).result as Record<string, string>;
            const models = server.app.services.models;
            await models.DeviceToken.update({ rotated_at: new Date(Date.now() - 31_000) }, { where: { rotated_at: { [Op.ne]: null } } });

            const reused = await refresh(first.refresh_token);
            expect(reused.statusCode).to.equal(400);
            expect(reused.result).to.equal({ error: 'invalid_grant', error_description: 'This refresh token was used already: the device is disconnected, connect it again.' });
            expect((await refresh(second.refresh_token)).result).to.include({ error: 'invalid_grant' });
            expect((await getMe(server, second.access_token)).statusCode).to.equal(401);

            const older = await connectedDevice(server, await familyMember(server));
            const next = (await refresh(older.refresh_token)).result as Record<string, string>;
            await refresh(next.refresh_token);
            expect((await refresh(older.refresh_token)).result).to.include({ error: 'invalid_grant' });      // not the latest rotation: no grace
            expect((await getMe(server, next.access_token)).statusCode).to.equal(401);
        });

        it('refuses a malformed, unknown or expired refresh token, and an access token, with invalid_grant', async () => {

            const device = await connectedDevice(server, await familyMember(server));
            for (const token of ['frr_nonsense', `frr_${'A'.repeat(36)}`, device.access_token]) {
                expect((await refresh(token)).result).to.include({ error: 'invalid_grant' });
            }

            await server.app.services.models.DeviceToken.update({ expires_at: new Date(Date.now() - 1) }, { where: { kind: 'refresh', rotated_at: null } });
            expect((await refresh(device.refresh_token)).result).to.include({ error: 'invalid_grant' });
        });
    });

    describe('POST /oauth/revoke', () => {

        it('disconnects the device with its access token or its refresh token, answering 200; an unknown token too', async () => {

            for (const kind of ['access_token', 'refresh_token'] as const) {
                const device = await connectedDevice(server, await familyMember(server));
                const response = await postForm(server, '/oauth/revoke', { client_id: desktopClient, token: device[kind] });
                expect(response.statusCode).to.equal(200);
                expect((await getMe(server, device.access_token)).statusCode).to.equal(401);
                expect((await refresh(device.refresh_token)).result).to.include({ error: 'invalid_grant' });
            }

            expect((await postForm(server, '/oauth/revoke', { client_id: desktopClient, token: 'anything' })).statusCode).to.equal(200);
            expect((await postForm(server, '/oauth/revoke', { client_id: desktopClient })).result).to.include({ error: 'invalid_request' });
            expect((await postForm(server, '/oauth/revoke', { client_id: 'nobody', token: 'anything' })).result).to.include({ error: 'invalid_client' });
        });
    });

    it('rate-limits the OAuth endpoints per client address', async () => {

        const policiesDir = copyPolicies();
        editPolicyFile(policiesDir, 'messaging.yaml', 'limit: 60', 'limit: 2');
        const limited = await testServer({ policiesDir });
        // An address of its own: with Redis, the counters outlive one run of the tests.
        const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
        try {
            for (let i = 0; i < 2; ++i) {
                expect((await postForm(limited, '/oauth/device/code', { client_id: desktopClient }, address)).statusCode).to.equal(200);
            }

            const refused = await postForm(limited, '/oauth/device/code', { client_id: desktopClient }, address);
            expect(refused.statusCode).to.equal(429);
            expect(refused.result).to.include({ error: 'slow_down' });
            expect(Number(refused.headers['retry-after'])).to.be.above(0);
        }
        finally {
            await limited.stop();
        }
    });
});
