import Crypto from 'crypto';

/*
 * Endpoint signing secrets at rest: AES-256-GCM under a key derived from the master
 * secret for this purpose only. The endpoint id is the additional authenticated data,
 * so a ciphertext copied onto another endpoint's row does not decrypt.
 */

const version = 'v1';
const ivBytes = 12;

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function encryptSecret(key: Buffer, secret: string, endpointId: string): string {

    const iv = Crypto.randomBytes(ivBytes);
    const cipher = Crypto.createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(endpointId));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [version, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** Throws when the text was not sealed by encryptSecret under this key for this endpoint. */
export function decryptSecret(key: Buffer, sealed: string, endpointId: string): string {

    const [prefix, iv, tag, ciphertext] = sealed.split('.');
    if (prefix !== version || !iv || !tag || ciphertext === undefined) {
        throw new Error('Not a sealed webhook secret.');
    }

    const decipher = Crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(endpointId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
