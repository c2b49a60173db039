import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { newCacheKey, openRecord, sealRecord } from '../../src/profile/cipher';

export const lab = Lab.script();
const { describe, it } = lab;

describe('sealRecord() / openRecord()', () => {

    const key = newCacheKey();

    it('opens what it sealed, with a new nonce every time', () => {

        expect(key.length).to.equal(32);
        const first = sealRecord(key, 'messages:msg_1', 'Hello, world');
        const second = sealRecord(key, 'messages:msg_1', 'Hello, world');
        expect(first.equals(second)).to.be.false();
        expect(first.length).to.equal(12 + 16 + Buffer.byteLength('Hello, world'));
        expect(openRecord(key, 'messages:msg_1', first).toString()).to.equal('Hello, world');
        expect(openRecord(key, 'blobs:1', sealRecord(key, 'blobs:1', Buffer.from([0, 1, 2, 255]))).equals(Buffer.from([0, 1, 2, 255]))).to.be.true();
        expect(openRecord(key, 'state:empty', sealRecord(key, 'state:empty', '')).length).to.equal(0);
    });

    it('refuses a record altered anywhere: nonce, tag or ciphertext', () => {

        const sealed = sealRecord(key, 'messages:msg_1', 'Hello, world');
        for (const at of [0, 11, 12, 27, 28, sealed.length - 1]) {
            const altered = Buffer.from(sealed);
            altered[at] ^= 0x01;
            expect(() => openRecord(key, 'messages:msg_1', altered), `byte ${at}`).to.throw(/does not open/);
        }

        expect(() => openRecord(key, 'messages:msg_1', sealed.subarray(0, sealed.length - 1))).to.throw(/does not open/);
        expect(() => openRecord(key, 'messages:msg_1', sealed.subarray(0, 20))).to.throw(/too short/);
    });

    it('refuses a record moved to another row or table (other additional data)', () => {

        const sealed = sealRecord(key, 'messages:msg_1', 'Hello, world');
        expect(() => openRecord(key, 'messages:msg_2', sealed)).to.throw(/messages:msg_2 does not open/);
        expect(() => openRecord(key, 'conflicts:msg_1', sealed)).to.throw(/does not open/);
        expect(() => openRecord(key, '', sealed)).to.throw(/does not open/);
    });

    it('refuses a record sealed with another key', () => {

        const sealed = sealRecord(key, 'messages:msg_1', 'Hello, world');
        expect(() => openRecord(newCacheKey(), 'messages:msg_1', sealed)).to.throw(/does not open/);
    });
});
