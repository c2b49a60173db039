import Crypto from 'crypto';

export const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes drawn from the OS 4 KiB at a time and handed out once each: one system call for many
// ids instead of one per id (request ids are made for every request). Node's randomUUID() caches alike.
// A byte handed out is zeroed, so the pool never holds what an API key's secret was drawn from.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {

    if (poolOffset === pool.length) {
        Crypto.randomFillSync(pool);
        poolOffset = 0;
    }

    const byte = pool[poolOffset];
    pool[poolOffset++] = 0;
    return byte;
}

/** Random base62 text; rejection sampling keeps every character equally likely. */
export function randomBase62(length: number): string {

    let result = '';
    while (result.length < length) {
        const byte = randomByte();
        if (byte < 248) {         // 248 = 62 * 4: no modulo bias
            result += base62Alphabet[byte % 62];
        }
    }

    return result;
}

/** Encodes a non-negative integer in base62, left-padded to `width`. */
export function toBase62(value: number, width: number): string {

    let result = '';
    let rest = value;
    do {
        result = base62Alphabet[rest % 62] + result;
        rest = Math.floor(rest / 62);
    } while (rest > 0);

    return result.padStart(width, '0');
}

const recordIdLength = 20;

/** An opaque record id with a readable type prefix, like Stripe's `cus_…`. */
export function recordId(prefix: string): string {

    return `${prefix}_${randomBase62(recordIdLength)}`;
}

/** The shape recordId(prefix) gives, for checking ids that come from clients. */
export const recordIdPattern = (prefix: string): RegExp => new RegExp(`^${prefix}_[0-9A-Za-z]{${recordIdLength}}$`);

/** A family's long id: opaque and unguessable (about 190 bits). */
export function familyLongId(): string {

    return `fam_${randomBase62(32)}`;
}
