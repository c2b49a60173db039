import type { Request, ResponseToolkit, Server, ServerAuthSchemeObject } from '@hapi/hapi';
import Boom from '@hapi/boom';

import { apiError } from '../lib/errors';
import type { Models } from '../models';
import { hashApiKey, hashesEqual, isWellFormedApiKey } from './api-key-token';
import type { AuthEpoch } from './auth-epoch';
import type { ApiKeyCredentials } from './credentials';
import { KeyCache } from './key-cache';
import type { LastUsedTracker } from './last-used';

/**
 * What else a request of a verified key must pass before it counts as authenticated: the route
 * group's policy chain. It throws (or rejects with) a Boom error to refuse, and returns a promise
 * only when it must wait.
 */
export type Admission = (request: Request, credentials: ApiKeyCredentials) => void | Promise<void>;

export interface ApiKeySchemeOptions {
    models: Models;
    pepper: Buffer;
    authEpoch: AuthEpoch;
    lastUsed: LastUsedTracker;
    admit?: Admission;
}

function invalidKey(message: string): Boom.Boom {

    const error = apiError(401, 'invalid_key', message);
    error.output.headers['WWW-Authenticate'] = 'Bearer realm="family-records"';
    return error;
}

/** How many Authorization headers the request has: Node keeps only the first in `headers`. */
function authorizationHeaders(request: Request): number {

    const raw = request.raw.req.rawHeaders ?? [];           // none under server.inject, which sends one of each
    let count = 0;
    for (let i = 0; i < raw.length; i += 2) {
        if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') {
            count += 1;
        }
    }

    return count;
}

/** The key of `Authorization: Bearer <key>`, or the 401 saying what is wrong with the header instead. */
function bearerToken(request: Request): string | Boom.Boom {

    // Authorization is no list (RFC 9110 §5.3): of two, a proxy in front may have read the other one.
    if (authorizationHeaders(request) > 1) {
        return invalidKey('More than one Authorization header: send one, Authorization: Bearer <API key>.');
    }

    const header = String(request.headers.authorization ?? '');
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (match) {
        return match[1];
    }

    const scheme = /^\s*(\S+)/.exec(header)?.[1];
    if (scheme === undefined || (scheme.toLowerCase() === 'bearer' && header.trim().length === scheme.length)) {
        return invalidKey('Missing API key: send Authorization: Bearer <API key>.');
    }

    return invalidKey(scheme.toLowerCase() === 'bearer'
        ? 'Malformed Authorization header: send Authorization: Bearer <API key>, the key after one space.'
        : 'Authorization is not of the Bearer scheme: send Authorization: Bearer <API key>.');
}

async function loadCredentials(models: Models, hash: string): Promise<ApiKeyCredentials | undefined> {

    const key = await models.ApiKey.findOne({ where: { secret_hash: hash } });
    if (!key || key.revoked_at || !hashesEqual(key.secret_hash, hash)) {
        return undefined;
    }

    const family = await models.Family.findByPk(key.family_long_id);
    if (!family) {
        return undefined;
    }

    return {
        key: {
            id: key.id,
            name: key.name,
            resourceScopes: key.resource_scopes,
            operationScopes: key.operation_scopes,
            predatesWriteScopes: key.predates_write_scopes
        },
        family: {
            familyLongId: family.family_long_id,
            name: family.name,
            plan: family.plan,
            apiEnabled: family.api_enabled,
            apiResources: family.api_resources,
            suspended: Boolean(family.api_suspended_at)
        }
    };
}

/** The `api-key` auth scheme: `Authorization: Bearer frk_…`. */
export function apiKeyScheme(server: Server, options: ApiKeySchemeOptions): ServerAuthSchemeObject {

    // Keyed by the key itself, as Kong's key-auth caches it: a known key then costs a map
    // lookup, not a keyed hash per request. The cache lives only in this process's memory.
    const cache = new KeyCache();

    /*
     * Admission runs here, inside authentication, because hapi reads and parses a request's body right after this
     * step: a request the policies refuse (scope, suspension, rate limit) is answered before its body is read, and
     * one with a bad body still counts against the rate limit. A refused request keeps its credentials, for the
     * usage meter and the logs.
     */
    const refused = (h: ResponseToolkit, credentials: ApiKeyCredentials) => {

        return (error: Error) => h.unauthenticated(error, { credentials: credentials as never });
    };

    const authenticated = (request: Request, h: ResponseToolkit, credentials: ApiKeyCredentials) => {

        options.lastUsed.touch(credentials.key.id);
        const admitted = () => h.authenticated({ credentials: credentials as never });
        let waiting: void | Promise<void>;
        try {
            waiting = options.admit?.(request, credentials);
        }
        catch (error) {
            return refused(h, credentials)(error as Error);
        }

        return waiting ? waiting.then(admitted, refused(h, credentials)) : admitted();
    };

    /*
     * Loads a key the cache does not hold under `epoch`, read before loading: a change during the load forces a reload next time.
     * Without an epoch (Redis does not answer) the key is checked against the database and not cached: nothing says when it changes.
     */
    const load = async (request: Request, h: ResponseToolkit, token: string, epoch: string | undefined) => {

        if (!isWellFormedApiKey(token)) {
            throw invalidKey('Malformed API key.');
        }

        const credentials = await loadCredentials(options.models, hashApiKey(token, options.pepper));
        if (!credentials) {
            throw invalidKey('Unknown or revoked API key.');
        }

        if (epoch !== undefined) {
            cache.set(token, epoch, credentials);
        }

        return authenticated(request, h, credentials);
    };

    const verify = (request: Request, h: ResponseToolkit, token: string, epoch: string | undefined) => {

        const cached = epoch === undefined ? undefined : cache.get(token, epoch);
        return cached ? authenticated(request, h, cached) : load(request, h, token, epoch);
    };

    return {
        // Synchronous for a cached key under an epoch read without a round-trip: a request through the gateway awaits nothing.
        authenticate(request: Request, h: ResponseToolkit) {

            const token = bearerToken(request);
            if (typeof token !== 'string') {
                throw token;
            }

            const epoch = options.authEpoch.current();
            return typeof epoch === 'object' ? epoch.then((current) => verify(request, h, token, current)) : verify(request, h, token, epoch);
        }
    };
}
