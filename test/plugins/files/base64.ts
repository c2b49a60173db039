import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { isPaddedBase64 } from '../../../plugins/files/base64';

export const lab = Lab.script();
const { describe, it } = lab;

describe('isPaddedBase64()', () => {

    it('takes the standard alphabet in groups of four, the last padded with = or == when short', () => {

        for (const text of ['QUJD', 'QUI=', 'QQ==', 'ab+/09Zz', Buffer.from([0xfb, 0xff, 0xbf]).toString('base64')]) {
            expect(isPaddedBase64(text), text).to.be.true();
        }
    });

    it('refuses a short group, padding anywhere but at the end or more than two, another alphabet, white space and line breaks', () => {

        for (const text of ['QUJ', 'QQ=', 'QUJDQQ', 'Q===', 'QUJDQ===', 'QU=D', '=QUJ', 'QUJD====', 'QUJ-', 'QUJ_', 'QU JD', 'QUJD\n', 'QUJD\r\n', 'QU\nJD', 'QUJD\u2028', 'QUJ\u00e9']) {
            expect(isPaddedBase64(text), JSON.stringify(text)).to.be.false();
        }
    });

    it('checks a file larger than any plan takes without overflowing a stack (a repeated group in a regular expression did, now and then)', () => {

        const encoded = Buffer.alloc(64 * 1024 * 1024, 0xa5).toString('base64');
        expect(isPaddedBase64(encoded)).to.be.true();
        expect(isPaddedBase64(`${encoded.slice(0, -8)}-${encoded.slice(-7)}`)).to.be.false();
    });
});
