import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { parseByteRange, requestedRange, unsatisfiable } from '../../../plugins/files/byte-range';

export const lab = Lab.script();
const { describe, it } = lab;

describe('parseByteRange()', () => {

    it('reads first-last, first- and -suffix, clamping the end to the file', () => {

        expect(parseByteRange('bytes=0-0', 10)).to.equal({ start: 0, end: 0 });
        expect(parseByteRange('bytes=2-5', 10)).to.equal({ start: 2, end: 5 });
        expect(parseByteRange('bytes=7-', 10)).to.equal({ start: 7, end: 9 });
        expect(parseByteRange('bytes=7-99999999999999999999', 10)).to.equal({ start: 7, end: 9 });
        expect(parseByteRange('bytes=-3', 10)).to.equal({ start: 7, end: 9 });
        expect(parseByteRange('bytes=-30', 10)).to.equal({ start: 0, end: 9 });
        expect(parseByteRange(' bytes=1-2 ', 10)).to.equal({ start: 1, end: 2 });
    });

    it('reads the unit in any case, as RFC 9110 §14.1 asks', () => {

        expect(parseByteRange('Bytes=0-9', 10)).to.equal({ start: 0, end: 9 });
        expect(parseByteRange('BYTES=-3', 10)).to.equal({ start: 7, end: 9 });
        expect(parseByteRange('bYtEs=10-', 10)).to.equal(unsatisfiable);
    });

    it('reads the ranges as an HTTP list: empty elements and spaces around commas do not make one range several (RFC 9110 §5.6.1)', () => {

        expect(parseByteRange('bytes=0-9,', 10)).to.equal({ start: 0, end: 9 });
        expect(parseByteRange('bytes=, 2-5', 10)).to.equal({ start: 2, end: 5 });
        expect(parseByteRange('bytes=-3 ,,', 10)).to.equal({ start: 7, end: 9 });
        expect(parseByteRange('bytes=10-,', 10)).to.equal(unsatisfiable);
    });

    it('finds no byte of the file in a range starting at or past its end, or an empty suffix', () => {

        expect(parseByteRange('bytes=10-', 10)).to.equal(unsatisfiable);
        expect(parseByteRange('bytes=10-20', 10)).to.equal(unsatisfiable);
        expect(parseByteRange('bytes=-0', 10)).to.equal(unsatisfiable);
    });

    it('ignores what it cannot serve as one range: malformed, reversed, several ranges, other units', () => {

        for (const header of ['bytes=', 'bytes=,', 'bytes=-', 'bytes=5-2', 'bytes=0-1,3-4', 'bytes=0-1, 0-1', 'bytes=a-b', 'bytes=1-2-3', 'bytes=1.5-2', 'items=0-1', 'bytes 0-1']) {
            expect(parseByteRange(header, 10), header).to.be.undefined();
        }
    });
});

describe('requestedRange()', () => {

    const v1 = { etag: '"v1"', lastModified: 'Tue, 03 Mar 2026 10:20:30 GMT' };

    it('serves the range only when If-Range, if any, names the current version', () => {

        expect(requestedRange({}, 10, v1)).to.be.undefined();
        expect(requestedRange({ range: 'bytes=0-1' }, 10, v1)).to.equal({ start: 0, end: 1 });
        expect(requestedRange({ range: 'bytes=0-1', 'if-range': '"v1"' }, 10, v1)).to.equal({ start: 0, end: 1 });
        expect(requestedRange({ range: 'bytes=0-1', 'if-range': '"v0"' }, 10, v1)).to.be.undefined();
    });

    it('compares an If-Range ETag strongly, and an If-Range date exactly with Last-Modified (RFC 9110 §13.1.5)', () => {

        expect(requestedRange({ range: 'bytes=0-1', 'if-range': 'W/"v1"' }, 10, v1)).to.be.undefined();
        expect(requestedRange({ range: 'bytes=0-1', 'if-range': v1.lastModified }, 10, v1)).to.equal({ start: 0, end: 1 });
        expect(requestedRange({ range: 'bytes=0-1', 'if-range': 'Tuesday, 03-Mar-26 10:20:30 GMT' }, 10, v1)).to.equal({ start: 0, end: 1 });
        expect(requestedRange({ range: 'bytes=0-1', 'if-range': 'Tue, 03 Mar 2026 10:20:31 GMT' }, 10, v1)).to.be.undefined();
        expect(requestedRange({ range: 'bytes=0-1', 'if-range': 'Tue, 03 Mar 2026 10:20:29 GMT' }, 10, v1)).to.be.undefined();
        expect(requestedRange({ range: 'bytes=0-1', 'if-range': 'yesterday' }, 10, v1)).to.be.undefined();
    });
});
