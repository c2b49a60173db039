import Crypto from 'crypto';

import type { Request } from '@hapi/hapi';

import { apiError } from './errors';

/*
 * The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header, as Stripe's): what the
 * family API's creates and the messaging API's writes read of it.
 */

// 1 to 255 printable ASCII characters: a UUID fits, and so does any key a client makes of its own ids.
export const idempotencyKeyText = /^[\x20-\x7E]{1,255}$/;

/** The request's `Idempotency-Key`, if it sent one; 400 when it is not one. */
export function idempotencyKeyOf(request: Request): string | undefined {

    const key: unknown = request.headers['idempotency-key'];
    if (key === undefined) {
        return undefined;
    }

    if (typeof key !== 'string' || !idempotencyKeyText.test(key)) {
        throw apiError(400, 'invalid_request', 'Idempotency-Key: must be 1 to 255 printable ASCII characters (a UUID, say).');
    }

    return key;
}

/** JSON with every object's keys in order: the same body however its client ordered them. */
function canonicalJson(value: unknown): string {

    return JSON.stringify(value, (_name, inner: unknown) => (inner !== null && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : inner));
}

/** What tells one request from another under the same key: its path and its parsed body (hex SHA-256). */
export function requestFingerprint(path: string, payload: unknown): string {

    return Crypto.createHash('sha256').update(`${path}\n${canonicalJson(payload)}`).digest('hex');
}
