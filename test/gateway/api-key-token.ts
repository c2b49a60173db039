import Crypto from 'crypto';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { apiKeyPrefix, displayParts, generateApiKeyToken, hashApiKey, hashesEqual, isWellFormedApiKey } from '../../gateway/api-key-token';

export const lab = Lab.script();
const { describe, it } = lab;

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The key with the character at `index` replaced by another base62 character. */
function withOneCharacterChanged(key: string, index: number): string {

    const replacement = base62[(base62.indexOf(key[index]) + 1) % base62.length];
    return `${key.slice(0, index)}${replacement}${key.slice(index + 1)}`;
}

describe('generateApiKeyToken()', () => {

    it('makes 40-character keys: the frk_ prefix, 30 random base62 characters and a checksum', () => {

        const keys = Array.from({ length: 100 }, () => generateApiKeyToken());
        for (const key of keys) {
            expect(key).to.match(/^frk_[0-9A-Za-z]{36}$/);
            expect(key).to.have.length(40);
            expect(isWellFormedApiKey(key)).to.be.true();
        }

        expect(new Set(keys).size).to.equal(keys.length);
        expect(apiKeyPrefix).to.equal('frk_');
    });
});

describe('isWellFormedApiKey()', () => {

    it('refuses a key with any one character of its random part or checksum changed', () => {

        const key = generateApiKeyToken();
        for (let index = apiKeyPrefix.length; index < key.length; ++index) {
            expect(isWellFormedApiKey(withOneCharacterChanged(key, index)), `character ${index}`).to.be.false();
        }
    });

    it('refuses another prefix, another length and characters outside base62', () => {

        const key = generateApiKeyToken();
        expect(isWellFormedApiKey(`ghp_${key.slice(4)}`)).to.be.false();
        expect(isWellFormedApiKey(key.slice(0, -1))).to.be.false();
        expect(isWellFormedApiKey(`${key}0`)).to.be.false();
        expect(isWellFormedApiKey(`${key.slice(0, 10)}-${key.slice(11)}`)).to.be.false();
        expect(isWellFormedApiKey(` ${key}`)).to.be.false();
        expect(isWellFormedApiKey('')).to.be.false();
    });
});

describe('hashApiKey()', () => {

    it('gives the same 64-hex-digit hash for the same key and pepper, never the key itself', () => {

        const key = generateApiKeyToken();
        const pepper = Crypto.randomBytes(32);
        const hash = hashApiKey(key, pepper);
        expect(hash).to.match(/^[0-9a-f]{64}$/);
        expect(hashApiKey(key, pepper)).to.equal(hash);
        expect(hash).to.not.include(key.slice(apiKeyPrefix.length));
    });

    it('is keyed: another pepper gives another hash', () => {

        const key = generateApiKeyToken();
        expect(hashApiKey(key, Crypto.randomBytes(32))).to.not.equal(hashApiKey(key, Crypto.randomBytes(32)));
    });

    it('gives different keys different hashes under one pepper', () => {

        const pepper = Crypto.randomBytes(32);
        expect(hashApiKey(generateApiKeyToken(), pepper)).to.not.equal(hashApiKey(generateApiKeyToken(), pepper));
    });
});

describe('hashesEqual()', () => {

    it('tells equal hashes from different ones, and from ones of another length', () => {

        const pepper = Crypto.randomBytes(32);
        const hash = hashApiKey(generateApiKeyToken(), pepper);
        expect(hashesEqual(hash, hash.slice())).to.be.true();
        expect(hashesEqual(hash, hashApiKey(generateApiKeyToken(), pepper))).to.be.false();
        expect(hashesEqual(hash, hash.slice(0, 62))).to.be.false();
        expect(hashesEqual(hash, '')).to.be.false();
    });
});

describe('displayParts()', () => {

    it('keeps only the prefix with four characters and the last four', () => {

        const key = generateApiKeyToken();
        expect(displayParts(key)).to.equal({ display_prefix: key.slice(0, 8), last_four: key.slice(-4) });
    });
});
