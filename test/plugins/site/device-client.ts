import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { exchangeDeviceCode, refreshDeviceTokens, requestDeviceAuthorization } from '../../../lib/accounts/device-flow';
import { OAuthError } from '../../../lib/accounts/oauth-error';

/** What a device asking to connect holds: its device code, and the user code and link it shows. */
interface DeviceAsking {
    device_code: string;
    user_code: string;
    verification_uri_complete: string;
}

// Device names a client may send: the pages must show them as text, isolated, and never let them widen the page.
export const hostileNames = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '\u202Egnp.exe', 'W'.repeat(100)];

/** A device of the desktop client starting the flow (RFC 8628 §3.1), from `from`. */
export async function deviceAsking(server: Server, deviceName: string, from = '203.0.113.9'): Promise<DeviceAsking> {

    const asked = await requestDeviceAuthorization(server.app.services.accounts, { clientId: 'family-records-desktop', scope: 'profile messages:read', deviceName, from });
    return { device_code: asked.deviceCode, user_code: asked.userCode, verification_uri_complete: `${server.app.services.config.publicBaseUrl}/device?user_code=${asked.userCode}` };
}

/** The device polling for its tokens (RFC 8628 §3.4): the token endpoint's status and answer. */
export async function poll(server: Server, deviceCode: string): Promise<{ statusCode: number; body: Record<string, unknown> }> {

    try {
        return { statusCode: 200, body: { ...await exchangeDeviceCode(server.app.services.accounts, { clientId: 'family-records-desktop', deviceCode }) } };
    }
    catch (error) {
        if (error instanceof OAuthError) {
            return { statusCode: error.statusCode, body: { error: error.oauthError } };
        }

        throw error;
    }
}

/** A device that got its tokens: its current refresh token. */
export interface ConnectedDevice {
    refreshToken: string;
}

/** Whether the device can still get tokens: it refreshes, keeping its new refresh token; a disconnected one is told invalid_grant. */
export async function stillConnected(server: Server, device: ConnectedDevice): Promise<boolean> {

    try {
        device.refreshToken = (await refreshDeviceTokens(server.app.services.accounts, { clientId: 'family-records-desktop', refreshToken: device.refreshToken, from: '203.0.113.9' })).refresh_token;
        return true;
    }
    catch (error) {
        expect(error).to.be.an.instanceof(OAuthError);
        expect((error as OAuthError).oauthError).to.equal('invalid_grant');
        return false;
    }
}
