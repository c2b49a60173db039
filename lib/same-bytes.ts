import Crypto from 'crypto';

/**
 * Whether two secrets' bytes are the same, in time that does not depend on where they differ
 * (hashes, signatures, check values). Lengths are not secret here: each caller compares with a
 * value of fixed length, so a length apart ends it at once (timingSafeEqual throws on one).
 */
export function sameBytes(a: Buffer, b: Buffer): boolean {

    return a.length === b.length && Crypto.timingSafeEqual(a, b);
}
