import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { formBody, randomAddress } from './client';

/** What a device asking to connect holds: its device code, and the user code and link it shows. */
interface DeviceAsking {
    device_code: string;
    user_code: string;
    verification_uri_complete: string;
}

// Device names a client may send: the pages must show them as text, isolated, and never let them widen the page.
export const hostileNames = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '\u202Egnp.exe', 'W'.repeat(100)];

/**
 * A form POSTed to an OAuth endpoint by the desktop client, from `from`: by default an address of its own, as the
 * endpoints' limit per address (messaging.yaml) is shared through Redis by every test.
 */
async function oauthForm(server: Server, url: string, form: Record<string, string>, from = randomAddress()) {

    const response = await server.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: formBody(form), remoteAddress: from });
    return { statusCode: response.statusCode, body: JSON.parse(response.payload) as Record<string, string> };
}

/** A device of the desktop client starting the flow (RFC 8628 §3.1), from `from`. */
export async function deviceAsking(server: Server, deviceName: string, from?: string): Promise<DeviceAsking> {

    const { statusCode, body } = await oauthForm(server, '/oauth/device/code', { client_id: 'family-records-desktop', scope: 'profile messages:read', device_name: deviceName }, from);
    expect(statusCode).to.equal(200);
    return body as unknown as DeviceAsking;
}

/** The device polling the token endpoint (RFC 8628 §3.4): its status and JSON answer. */
export function poll(server: Server, deviceCode: string): Promise<{ statusCode: number; body: Record<string, string> }> {

    return oauthForm(server, '/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode, client_id: 'family-records-desktop' });
}

/** Whether a device's access token still works: its next request to the messaging API (GET /messaging/v1/me). */
export async function stillConnected(server: Server, accessToken: string): Promise<boolean> {

    const response = await server.inject({ method: 'GET', url: '/messaging/v1/me', headers: { authorization: `Bearer ${accessToken}` } });
    expect(response.statusCode).to.be.between(199, 402);
    return response.statusCode === 200;
}
