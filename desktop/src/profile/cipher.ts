import Crypto from 'crypto';

/*
 * AES-256-GCM per record. A sealed record is nonce (12 bytes) | tag (16 bytes) | ciphertext. The additional data names
 * the record ("messages:msg_1"): a sealed value copied into another row, or another table, does not open.
 */

const algorithm = 'aes-256-gcm';
const nonceLength = 12;
const tagLength = 16;


/** A new cache key: 32 random bytes. */
export function newCacheKey(): Buffer {

    return Crypto.randomBytes(32);
}


export function sealRecord(key: Buffer, aad: string, plain: Buffer | string): Buffer {

    const nonce = Crypto.randomBytes(nonceLength);
    const cipher = Crypto.createCipheriv(algorithm, key, nonce, { authTagLength: tagLength });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const encrypted = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), encrypted]);
}


/** The plain bytes; throws when the record was altered, belongs to another row, or was sealed with another key. */
export function openRecord(key: Buffer, aad: string, sealed: Buffer): Buffer {

    if (sealed.length < nonceLength + tagLength) {
        throw new Error(`A sealed record of ${aad} is too short to open`);
    }

    const decipher = Crypto.createDecipheriv(algorithm, key, sealed.subarray(0, nonceLength), { authTagLength: tagLength });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(sealed.subarray(nonceLength, nonceLength + tagLength));
    try {
        return Buffer.concat([decipher.update(sealed.subarray(nonceLength + tagLength)), decipher.final()]);
    }
    catch {
        throw new Error(`A sealed record of ${aad} does not open: altered, moved, or sealed with another key`);
    }
}
