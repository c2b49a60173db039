import Joi from 'joi';

import { apiError } from '../lib/errors';
import type { Models } from '../models';
import { accessTokenPrefix, hashDeviceToken, isWellFormedAccessToken, type DeviceTokenKeys } from './device-token';
import type { AuthEpoch } from './auth-epoch';
import type { AuthScheme, Verify } from './auth-scheme';
import { bearerToken } from './bearer-token';
import { KeyCache, keyCacheMaxAgeMinutes } from './key-cache';
import { principalFamily, type Principal } from './principal';

export interface DeviceTokenSchemeOptions {
    models: Models;
    keys: DeviceTokenKeys;
    authEpoch: AuthEpoch;
}

/** A route group's `auth.config` for the `device-token` scheme. */
export interface DeviceTokenConfig {
    token_cache: {
        max_entries: number;
        max_age_minutes: number;
    };
}

const deviceTokenConfig = Joi.object<DeviceTokenConfig, true>({
    token_cache: Joi.object<DeviceTokenConfig['token_cache'], true>({
        max_entries: Joi.number().integer().min(1).default(10_000),
        // The safety net under the auth epoch, as the api-key scheme's key_cache.
        max_age_minutes: Joi.number().min(0).max(keyCacheMaxAgeMinutes).default(keyCacheMaxAgeMinutes)
            .messages({ 'number.max': `must be at most ${keyCacheMaxAgeMinutes}: a change Redis missed must be seen within it` })
    }).default()
}).default();

function invalidToken(message: string) {

    const error = apiError(401, 'invalid_token', message);
    // RFC 6750 §3: a client that knows OAuth refreshes on error="invalid_token".
    error.output.headers['WWW-Authenticate'] = 'Bearer realm="family-records", error="invalid_token"';
    return error;
}

/** The principal of an access token's hash: the user its grant speaks for, in their family; undefined when it authenticates nobody. */
async function loadPrincipal(models: Models, hash: string, now: Date): Promise<Principal | undefined> {

    const token = await models.DeviceToken.findByPk(hash);
    if (!token || token.kind !== 'access' || token.expires_at <= now) {
        return undefined;
    }

    return grantPrincipal(models, token.grant_id, token.expires_at);
}

/** The principal of a device's grant while it stands (not revoked); `tokenExpiresAt` is the access token's that it was reached by. */
async function grantPrincipal(models: Models, grantId: string, tokenExpiresAt: Date): Promise<Principal | undefined> {

    const grant = await models.DeviceGrant.findByPk(grantId);
    if (!grant || grant.revoked_at) {
        return undefined;
    }

    const [user, family] = await Promise.all([models.User.findByPk(grant.user_id), models.Family.findByPk(grant.family_long_id)]);
    if (!user || !family || user.family_long_id !== grant.family_long_id) {
        return undefined;
    }

    return {
        who: { kind: 'user', id: user.id },
        credentialName: 'device token',
        family: principalFamily(family),
        // A device reaches no resource of the family API: its scopes are the messaging ones (`device.scopes`).
        scopes: { resources: [], operations: [], legacyOperationsOnly: false, livingPersons: 'full' },
        user: { id: user.id, email: user.email, disabled: Boolean(user.disabled_at) },
        device: { grantId: grant.id, clientId: grant.client_id, deviceName: grant.device_name, scopes: grant.scopes, tokenExpiresAt },
        rateLimitSubjects: {
            own: { policy: 'device', subject: grant.id },
            family: { policy: 'family', subject: family.family_long_id },
            user: { policy: 'user', subject: user.id }
        }
    };
}

/** An open request's device, checked again: its grant must stand, whether or not the access token it was opened with has expired since. */
async function recheckGrant(models: Models, admitted: Principal): Promise<Principal> {

    const principal = await grantPrincipal(models, admitted.device!.grantId, admitted.device!.tokenExpiresAt);
    if (!principal) {
        throw invalidToken('This device has been disconnected: connect it again.');
    }

    return principal;
}

/** The `device-token` auth scheme: `Authorization: Bearer frd_…`, an access token of a connected device. */
export function deviceTokenScheme(options: DeviceTokenSchemeOptions): AuthScheme<DeviceTokenConfig> {

    return {
        config: deviceTokenConfig,
        verifier: (config) => deviceTokenVerifier(options, config),
        // An open stream lives on past the access token it was opened with, while the device stays connected.
        rechecker: () => {

            return (admitted) => recheckGrant(options.models, admitted);
        },
        docs: {
            securityScheme: {
                type: 'http',
                scheme: 'bearer',
                bearerFormat: `${accessTokenPrefix}…`,
                description: `Send \`Authorization: Bearer <access token>\`, an access token (\`${accessTokenPrefix}…\`) a connected device got from POST /oauth/token. `
                    + 'It lives minutes; the device refreshes it with its refresh token.'
            },
            errors: ['invalid_token'],
            introduction: 'Every request of the messaging API needs `Authorization: Bearer <access token>` of a connected device (the OAuth device authorization grant at `/oauth/*`), except reading this reference. '
                + 'A token speaks for one user of one family, with the scopes the user approved: each operation names the scope it needs in its security requirement (`messages:read`, `messages:write`, `profile`). '
                + 'Rate limits count per device, per user and per family; every response lists whether it carries the RateLimit headers.'
        }
    };
}

function deviceTokenVerifier(options: DeviceTokenSchemeOptions, config: DeviceTokenConfig): Verify {

    // As the api-key scheme's cache: a known token costs a map lookup under the auth epoch, which a revocation moves.
    const cache = new KeyCache(config.token_cache.max_entries, config.token_cache.max_age_minutes * 60_000);
    const expired = () => invalidToken('The access token has expired: refresh it.');

    const load = async (token: string, epoch: string | undefined) => {

        if (!isWellFormedAccessToken(token)) {
            throw invalidToken('Malformed access token.');
        }

        const principal = await loadPrincipal(options.models, hashDeviceToken(token, options.keys), new Date());
        if (!principal) {
            throw invalidToken('Unknown, expired or revoked access token: refresh it, or connect the device again.');
        }

        if (epoch !== undefined) {
            cache.set(token, epoch, principal);
        }

        return principal;
    };

    const verify = (token: string, epoch: string | undefined) => {

        const cached = epoch === undefined ? undefined : cache.get(token, epoch);
        if (!cached) {
            return load(token, epoch);
        }

        if (cached.device!.tokenExpiresAt.getTime() <= Date.now()) {
            throw expired();
        }

        return cached;
    };

    // Synchronous for a cached token under an epoch read without a round-trip, as the api-key scheme.
    return (request) => {

        const token = bearerToken(request, 'access token', invalidToken);
        if (typeof token !== 'string') {
            throw token;
        }

        const epoch = options.authEpoch.current();
        return typeof epoch === 'object' ? epoch.then((current) => verify(token, current)) : verify(token, epoch);
    };
}
