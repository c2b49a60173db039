import Crypto from 'crypto';
import Zlib from 'zlib';

import { randomBase62, toBase62 } from '../lib/ids';
import { sameBytes } from '../lib/same-bytes';

/*
 * API keys look like GitHub's tokens: a recognisable prefix, 30 random base62
 * characters and a 6-character CRC32 checksum, so secret scanners can find a
 * leaked key and a typo is refused without touching the database.
 *
 *   frk_ + 30 random + 6 checksum = 40 characters, about 178 bits of entropy.
 */

export const apiKeyPrefix = 'frk_';
const randomLength = 30;
const checksumLength = 6;

function checksum(random: string): string {

    return toBase62(Zlib.crc32(random), checksumLength);
}

/** A token of this service's shape: `prefix`, the 30 random base62 characters given, their checksum. */
export function checksummedToken(prefix: string, random: string): string {

    return `${prefix}${random}${checksum(random)}`;
}

/** How many random base62 characters a token of this shape holds. */
export const tokenRandomLength = randomLength;

/** Whether `token` has the shape and checksum of a token of `prefix` this service could have issued. */
export function isWellFormedToken(prefix: string, token: string): boolean {

    if (token.length !== prefix.length + randomLength + checksumLength || !token.startsWith(prefix) || !/^[0-9A-Za-z]+$/.test(token.slice(prefix.length))) {
        return false;
    }

    const random = token.slice(prefix.length, prefix.length + randomLength);
    return token.endsWith(checksum(random));
}

export function generateApiKeyToken(): string {

    return checksummedToken(apiKeyPrefix, randomBase62(randomLength));
}

/** True when the text has the shape and checksum of a key we could have issued. */
export function isWellFormedApiKey(token: string): boolean {

    return isWellFormedToken(apiKeyPrefix, token);
}

/**
 * A fast keyed hash: keys are high-entropy, so a slow password hash would only
 * cost time per request. The pepper lives outside the database.
 */
export function hashApiKey(token: string, pepper: Buffer): string {

    return Crypto.createHmac('sha256', pepper).update(token).digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {

    return sameBytes(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** What may be shown of a key after creation. */
export function displayParts(token: string): { display_prefix: string; last_four: string } {

    return { display_prefix: token.slice(0, apiKeyPrefix.length + 4), last_four: token.slice(-4) };
}
