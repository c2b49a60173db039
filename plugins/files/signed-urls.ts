import Crypto from 'crypto';

import { apiError } from '../../lib/errors';
import { sameBytes } from '../../lib/same-bytes';
import type { FilesContext } from './context';

/** What a signed file URL grants: one record's file, until `expiresAt` (unix seconds). */
export interface FileGrant {
    resource: string;
    id: string;
    storageKey: string;
    expiresAt: number;
    /**
     * Issued to a key that sees living persons redacted: served only while the record concerns no
     * living person, asked again at each download (its person may have changed since the link was made).
     */
    redacted?: boolean;
}

const signature = (key: Buffer, payload: string) => Crypto.createHmac('sha256', key).update(payload).digest('base64url');

/** `<payload>.<signature>`: base64url JSON of the grant, and its HMAC-SHA256. */
export function fileToken(key: Buffer, grant: FileGrant): string {

    const fields = [grant.resource, grant.id, grant.storageKey, grant.expiresAt, ...grant.redacted ? [1] : []];
    const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
    return `${payload}.${signature(key, payload)}`;
}

/** The grant of a token this service signed: 403 `invalid_signature` when altered or foreign, 403 `url_expired` once past its expiry. */
export function verifyFileToken(key: Buffer, token: string, nowSeconds: number): FileGrant {

    const invalid = apiError(403, 'invalid_signature', 'This file link is not valid: it was altered, or not issued by this service.');
    const [payload, given, ...rest] = token.split('.');
    // The signature's text is compared, not its decoded bytes: base64url has several spellings of the same bytes.
    const expected = Buffer.from(signature(key, payload));
    if (rest.length > 0 || given === undefined || !sameBytes(Buffer.from(given), expected)) {
        throw invalid;
    }

    const [resource, id, storageKey, expiresAt, redacted] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, string, string, number, 1?];
    if (nowSeconds >= expiresAt) {
        throw apiError(403, 'url_expired', 'This file link has expired: ask the API for a fresh one.');
    }

    return { resource, id, storageKey, expiresAt, redacted: redacted === 1 };
}

export const nowInSeconds = () => Math.floor(Date.now() / 1000);

/**
 * When a link signed now for `lifetime` seconds expires: at a multiple of a third of the lifetime,
 * so the link stays the same for that long and a browser's cache of the picture is of use across
 * pages (a new link every time would be a new download every time). It works for two thirds of
 * the lifetime at least and never for longer than the lifetime.
 */
export function linkExpiry(nowSeconds: number, lifetime: number): number {

    const step = Math.max(1, Math.floor(lifetime / 3));
    return Math.floor((nowSeconds + lifetime) / step) * step;
}

/**
 * A signed URL serving the file of `record`, valid for up to the resource's `signed_url_seconds`
 * (policies/files.yaml; linkExpiry() says how long); `redacted` for a key that sees living persons redacted.
 */
export function signedFileUrl(context: FilesContext, resource: string, record: Readonly<Record<string, unknown>>, redacted = false): { url: string; expiresAt: Date } {

    const lifetime = context.policies().files.resources.find((entry) => entry.name === resource)!.signed_url_seconds;
    const grant: FileGrant = { resource, id: record.id as string, storageKey: record.storage_key as string, expiresAt: linkExpiry(nowInSeconds(), lifetime), redacted };
    return { url: `${context.publicBaseUrl}/files/${fileToken(context.signingKey, grant)}`, expiresAt: new Date(grant.expiresAt * 1000) };
}
