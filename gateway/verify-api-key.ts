import Boom from '@hapi/boom';
import Joi from 'joi';

import { apiError } from '../lib/errors';
import type { Models } from '../models';
import { apiKeyPrefix, hashApiKey, hashesEqual, isWellFormedApiKey } from './api-key-token';
import type { AuthEpoch } from './auth-epoch';
import type { AuthScheme, Verify } from './auth-scheme';
import { bearerToken } from './bearer-token';
import { KeyCache, keyCacheMaxAgeMinutes } from './key-cache';
import type { LastUsedTracker } from './last-used';
import { principalFamily, type Principal } from './principal';

export interface ApiKeySchemeOptions {
    models: Models;
    pepper: Buffer;
    authEpoch: AuthEpoch;
    lastUsed: LastUsedTracker;
}

/** A route group's `auth.config` for the `api-key` scheme. */
export interface ApiKeyConfig {
    key_cache: {
        max_entries: number;
        max_age_minutes: number;
    };
}

const apiKeyConfig = Joi.object<ApiKeyConfig, true>({
    key_cache: Joi.object<ApiKeyConfig['key_cache'], true>({
        max_entries: Joi.number().integer().min(1).default(10_000),
        // The safety net under the auth epoch: what auth-epoch.ts promises when Redis missed a change.
        max_age_minutes: Joi.number().min(0).max(keyCacheMaxAgeMinutes).default(keyCacheMaxAgeMinutes)
            .messages({ 'number.max': `must be at most ${keyCacheMaxAgeMinutes}: a change Redis missed must be seen within it` })
    }).default()
}).default();

function invalidKey(message: string): Boom.Boom {

    const error = apiError(401, 'invalid_key', message);
    error.output.headers['WWW-Authenticate'] = 'Bearer realm="family-records"';
    return error;
}

async function loadPrincipal(models: Models, hash: string): Promise<Principal | undefined> {

    const key = await models.ApiKey.findOne({ where: { secret_hash: hash } });
    if (!key || key.revoked_at || !hashesEqual(key.secret_hash, hash)) {
        return undefined;
    }

    const family = await models.Family.findByPk(key.family_long_id);
    if (!family) {
        return undefined;
    }

    return {
        who: { kind: 'key', id: key.id },
        credentialName: 'API key',
        family: principalFamily(family),
        scopes: { resources: key.resource_scopes, operations: key.operation_scopes, legacyOperationsOnly: key.predates_write_scopes, livingPersons: key.living_persons },
        rateLimitSubjects: { own: { policy: 'key', subject: key.id }, family: { policy: 'family', subject: family.family_long_id } }
    };
}

/** The `api-key` auth scheme: `Authorization: Bearer frk_…`. */
export function apiKeyScheme(options: ApiKeySchemeOptions): AuthScheme<ApiKeyConfig> {

    return {
        config: apiKeyConfig,
        verifier: (config) => apiKeyVerifier(options, config),
        docs: {
            securityScheme: {
                type: 'http',
                scheme: 'bearer',
                bearerFormat: `${apiKeyPrefix}…`,
                description: `Send \`Authorization: Bearer <API key>\`. Keys look like \`${apiKeyPrefix}\` followed by 36 base62 characters, the last six a checksum, so secret scanners recognise a leaked key. `
                    + 'A key reaches one family, chosen resources and chosen operations; it is shown once when created and stored only as a keyed hash.'
            },
            errors: ['invalid_key'],
            introduction: 'Every request of the family API needs `Authorization: Bearer <API key>`, except reading this reference and the signed file URLs (`/files/{token}`), where the URL is the credential. '
                + 'A key reaches one family, chosen resources and chosen operations: '
                + 'each operation names the operation scopes it needs in `x-required-operations`, and so does each query parameter that needs more (`search`, `sort`, `filter[…]`). '
                + 'Rate limits come from the family\'s plan; every response lists whether it carries the RateLimit headers.'
        }
    };
}

function apiKeyVerifier(options: ApiKeySchemeOptions, config: ApiKeyConfig): Verify {

    // Keyed by the key itself, as Kong's key-auth caches it: a known key then costs a map
    // lookup, not a keyed hash per request. The cache lives only in this process's memory.
    const cache = new KeyCache(config.key_cache.max_entries, config.key_cache.max_age_minutes * 60_000);

    const verified = (principal: Principal) => {

        options.lastUsed.touch(principal.who.id);
        return principal;
    };

    /*
     * Loads a key the cache does not hold under `epoch`, read before loading: a change during the load forces a reload next time.
     * Without an epoch (Redis does not answer) the key is checked against the database and not cached: nothing says when it changes.
     */
    const load = async (token: string, epoch: string | undefined) => {

        if (!isWellFormedApiKey(token)) {
            throw invalidKey('Malformed API key.');
        }

        const principal = await loadPrincipal(options.models, hashApiKey(token, options.pepper));
        if (!principal) {
            throw invalidKey('Unknown or revoked API key.');
        }

        if (epoch !== undefined) {
            cache.set(token, epoch, principal);
        }

        return verified(principal);
    };

    const verify = (token: string, epoch: string | undefined) => {

        const cached = epoch === undefined ? undefined : cache.get(token, epoch);
        return cached ? verified(cached) : load(token, epoch);
    };

    // Synchronous for a cached key under an epoch read without a round-trip: a request through the gateway awaits nothing.
    return (request) => {

        const token = bearerToken(request, 'API key', invalidKey);
        if (typeof token !== 'string') {
            throw token;
        }

        const epoch = options.authEpoch.current();
        return typeof epoch === 'object' ? epoch.then((current) => verify(token, current)) : verify(token, epoch);
    };
}
