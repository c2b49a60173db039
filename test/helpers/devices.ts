import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { exchangeDeviceCode, requestDeviceAuthorization, type DeviceAuthorization, type TokenAnswer } from '../../lib/accounts/device-flow';
import { approveDeviceRequest } from '../../lib/accounts/devices';
import { createFamily } from '../../lib/accounts/families';
import { recordId } from '../../lib/ids';
import type { User } from '../../models/user';
import { editPolicyFile } from './policy-files';
import { freePort } from './ports';
import { copyPolicies, testServer } from './server';

/** A family of its own with one member (no password: these tests never sign in through the site). */
export async function familyMember(server: Server, options: { plan?: string; role?: 'manager' | 'member' } = {}): Promise<User> {

    const accounts = server.app.services.accounts;
    const family = await createFamily(accounts, { name: 'Device family', plan: options.plan ?? 'family' });
    return accounts.models.User.create({
        id: recordId('usr'),
        email: `${recordId('mail').toLowerCase()}@example.com`,
        password_hash: '$2b$12$notapasswordhashnotapasswordhashnotapasswordhashnotapa',
        family_long_id: family.family_long_id,
        role: options.role ?? 'member'
    });
}

/** A device authorization request of the desktop client, as POST /oauth/device/code makes it. */
export function deviceRequest(server: Server, input: { scope?: string; deviceName?: string } = {}): Promise<DeviceAuthorization> {

    return requestDeviceAuthorization(server.app.services.accounts, { clientId: 'family-records-desktop', from: '192.0.2.7', ...input });
}

/** POSTs a form to one of the OAuth endpoints, as an OAuth client sends it. */
export function postForm(server: Server, url: string, fields: Record<string, string>, remoteAddress?: string): Promise<ServerInjectResponse> {

    return server.inject({ method: 'POST', url, payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress });
}

export const desktopClient = 'family-records-desktop';
export const deviceCodeGrant = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * A connected device of `user`: asked, approved and exchanged through the services the OAuth endpoints call (their
 * own tests go through them), so that the many devices tests connect do not count against the endpoints' limit
 * per address, which with Redis is one window shared by every test file. Its first token answer.
 */
export async function connectedDevice(server: Server, user: User, fields: { scope?: string; device_name?: string } = {}): Promise<TokenAnswer> {

    const accounts = server.app.services.accounts;
    const asked = await deviceRequest(server, { scope: fields.scope, deviceName: fields.device_name });
    await approveDeviceRequest(accounts, asked.userCode, user);
    return exchangeDeviceCode(accounts, { clientId: desktopClient, deviceCode: asked.deviceCode });
}

/** GET /messaging/v1/me with an access token. */
export function getMe(server: Server, accessToken: string): Promise<ServerInjectResponse> {

    return server.inject({ method: 'GET', url: '/messaging/v1/me', headers: { authorization: `Bearer ${accessToken}` } });
}

/**
 * A started server for a standard OAuth client over real HTTP: its issuer is its own address, it asks for a poll
 * every second instead of 5 (the library waits the interval), and the OAuth endpoints' limit per address is out
 * of the way (other tests' requests from 127.0.0.1 may count in the same window in Redis).
 */
export async function oauthClientServer(): Promise<{ server: Server; baseUrl: string }> {

    const policiesDir = copyPolicies();
    editPolicyFile(policiesDir, 'messaging.yaml', 'interval_seconds: 5', 'interval_seconds: 1');
    editPolicyFile(policiesDir, 'messaging.yaml', 'limit: 60', 'limit: 1000000');
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const server = await testServer({ policiesDir, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl } });
    await server.start();
    return { server, baseUrl };
}
