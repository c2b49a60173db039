import Crypto from 'crypto';

import { base62Alphabet, randomBase62 } from '../lib/ids';
import { checksummedToken, isWellFormedToken, tokenRandomLength } from './api-key-token';

/*
 * A connected device's tokens have the API keys' shape (api-key-token.ts) under prefixes of their own,
 * so secret scanners tell a leaked access token from a refresh token and from a key.
 */

export const accessTokenPrefix = 'frd_';
export const refreshTokenPrefix = 'frr_';

export interface DeviceTokenPair {
    accessToken: string;
    refreshToken: string;
}

/** The keys of device tokens, each derived from the master secret for its purpose alone. */
export interface DeviceTokenKeys {
    /** Keys the stored hashes of the tokens. */
    hash: Buffer;
    /** Derives a refresh token's successors (successorPair). */
    rotation: Buffer;
}

export function generateDeviceTokenPair(): DeviceTokenPair {

    return {
        accessToken: checksummedToken(accessTokenPrefix, randomBase62(tokenRandomLength)),
        refreshToken: checksummedToken(refreshTokenPrefix, randomBase62(tokenRandomLength))
    };
}

/** Base62 characters drawn from a keyed hash of `label` (rejection sampling over HMAC blocks, as randomBase62 over random bytes). */
function derivedBase62(key: Buffer, label: string): string {

    let result = '';
    for (let block = 0; result.length < tokenRandomLength; ++block) {
        for (const byte of Crypto.createHmac('sha256', key).update(`${label}:${block}`).digest()) {
            if (byte < 248 && result.length < tokenRandomLength) {
                result += base62Alphabet[byte % 62];
            }
        }
    }

    return result;
}

/**
 * The pair a refresh token is exchanged for, derived from it under a key of the service: the same token
 * presented again within the grace gets the same pair without the service ever storing a token.
 */
export function successorPair(refreshToken: string, rotationKey: Buffer): DeviceTokenPair {

    return {
        accessToken: checksummedToken(accessTokenPrefix, derivedBase62(rotationKey, `access:${refreshToken}`)),
        refreshToken: checksummedToken(refreshTokenPrefix, derivedBase62(rotationKey, `refresh:${refreshToken}`))
    };
}

export function isWellFormedAccessToken(token: string): boolean {

    return isWellFormedToken(accessTokenPrefix, token);
}

export function isWellFormedRefreshToken(token: string): boolean {

    return isWellFormedToken(refreshTokenPrefix, token);
}

/** A keyed hash, as API keys' (hashApiKey) under a key of its own: tokens are high-entropy. */
export function hashDeviceToken(token: string, keys: DeviceTokenKeys): string {

    return Crypto.createHmac('sha256', keys.hash).update(token).digest('hex');
}
