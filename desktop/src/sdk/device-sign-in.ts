import { setTimeout as sleep } from 'timers/promises';

import type { ServerMetadata } from './discovery';
import { OAuthError, retryAfterOf } from './errors';
import { httpFetch, jsonOf } from './http';

/** The OAuth client id of this client (public: a desktop application keeps no secret). */
export const clientId = 'family-records-desktop';

/** The device authorization answer (RFC 8628 §3.2). */
export interface DeviceCode {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete: string;
    expires_in: number;
    interval: number;
}

export interface TokenSet {
    access_token: string;
    refresh_token: string;
    /** When the access token expires, in ms since the epoch. */
    expires_at: number;
    scope: string;
}

/** The fields of the OAuth endpoints' answers that the client reads. */
interface OAuthAnswer {
    access_token?: string;
    refresh_token?: string;
    expires_in?: number;
    scope?: string;
    error?: string;
    error_description?: string;
    message?: string;
}

const deviceCodeGrant = 'urn:ietf:params:oauth:grant-type:device_code';

/** POSTs a form to an OAuth endpoint: its JSON answer, or an OAuthError. */
async function postForm(url: string, fields: Record<string, string>, signal?: AbortSignal): Promise<OAuthAnswer> {

    const response = await httpFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(fields).toString(),
        signal
    });
    const body = (await jsonOf(response) ?? {}) as OAuthAnswer;
    if (!response.ok) {
        const error = typeof body.error === 'string' ? body.error : `http_${response.status}`;
        throw new OAuthError(response.status, error, body.error_description ?? body.message, retryAfterOf(response.headers.get('retry-after')));
    }

    return body;
}

function tokenSetOf(answer: OAuthAnswer): TokenSet {

    return {
        access_token: answer.access_token!,
        refresh_token: answer.refresh_token!,
        expires_at: Date.now() + Number(answer.expires_in) * 1000,
        scope: answer.scope ?? ''
    };
}

/** Asks for a device code (RFC 8628 §3.1); `scope` defaults to every scope of the client. */
export async function requestDeviceCode(metadata: ServerMetadata, options: { deviceName: string; scope?: string }): Promise<DeviceCode> {

    const fields: Record<string, string> = { client_id: clientId, device_name: options.deviceName };
    if (options.scope) {
        fields.scope = options.scope;
    }

    return await postForm(metadata.device_authorization_endpoint, fields) as unknown as DeviceCode;
}

/**
 * Polls the token endpoint until the user approves (the tokens), denies (OAuthError access_denied) or the code
 * expires (expired_token). Waits `interval` seconds between polls, 5 more after each slow_down.
 */
export async function pollForTokens(metadata: ServerMetadata, code: DeviceCode, options: { signal?: AbortSignal; onPending?(): void } = {}): Promise<TokenSet> {

    let intervalMs = Math.max(1, code.interval ?? 5) * 1000;
    const deadline = Date.now() + code.expires_in * 1000;
    for (;;) {
        await sleep(intervalMs, undefined, { signal: options.signal });
        if (Date.now() > deadline) {
            throw new OAuthError(400, 'expired_token', 'The code expired before it was approved: start again.');
        }

        try {
            return tokenSetOf(await postForm(metadata.token_endpoint, { grant_type: deviceCodeGrant, client_id: clientId, device_code: code.device_code }, options.signal));
        }
        catch (error) {
            if (!(error instanceof OAuthError)) {
                throw error;
            }

            if (error.error === 'slow_down') {
                intervalMs = Math.max(intervalMs + 5000, (error.retryAfterSeconds ?? 0) * 1000);
            }
            else if (error.error === 'authorization_pending') {
                options.onPending?.();
            }
            else {
                throw error;
            }
        }
    }
}

/** A refresh (every refresh answers a new refresh token: keep it before using it). OAuthError invalid_grant: the grant is gone. */
export async function refreshTokens(metadata: ServerMetadata, refreshToken: string): Promise<TokenSet> {

    const answer = await postForm(metadata.token_endpoint, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
    return tokenSetOf(answer);
}

/** Revokes a token (RFC 7009): the device is disconnected, whichever of its tokens is sent. */
export async function revokeToken(metadata: ServerMetadata, token: string): Promise<void> {

    await postForm(metadata.revocation_endpoint, { client_id: clientId, token });
}
