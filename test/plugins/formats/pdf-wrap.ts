import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { wrapLines } from '../../../plugins/formats/pdf-wrap';

export const lab = Lab.script();
const { describe, it } = lab;

/** Every character (code point) one unit wide, a combining mark none. */
const widthOf = (text: string) => Array.from(text.replace(/\p{M}/gu, '')).length;

/** The lines' texts. */
function wrapped(text: string, width: number, maxLines = 12): string[] {

    const result = wrapLines(text, width, maxLines, widthOf);
    return result.lines.map((line) => result.text.slice(line.start, line.end));
}

describe('wrapLines()', () => {

    it('breaks at spaces, leaving them out of the lines, and keeps words whole when they fit', () => {

        expect(wrapped('one two three four', 9)).to.equal(['one two', 'three', 'four']);
        expect(wrapped('one  two', 8)).to.equal(['one  two']);
        expect(wrapped('one two', 7)).to.equal(['one two']);
    });

    it('ends a line at every line feed, an empty paragraph being an empty line', () => {

        expect(wrapped('one\n\ntwo', 10)).to.equal(['one', '', 'two']);
        expect(wrapped('', 10)).to.equal(['']);
    });

    it('cuts a word wider than a line, never between a letter and its marks, inside a surrogate pair or an emoji sequence', () => {

        expect(wrapped('abcdefgh ij', 3)).to.equal(['abc', 'def', 'gh', 'ij']);
        expect(wrapped('שָׁלוֹם', 2)).to.equal(['שָׁל', 'וֹם']);
        expect(wrapped('😀😀😀', 2)).to.equal(['😀😀', '😀']);
        expect(wrapped('👩‍🌾👍🏽1️⃣', 1)).to.equal(['👩‍🌾', '👍🏽', '1️⃣']);            // joined emoji, a skin tone, a keycap
        expect(wrapped('abc', 0)).to.equal(['a', 'b', 'c']);                   // a line moves on by one character at least
    });

    it('cuts the text after maxLines, the last line ending with … within the width', () => {

        const result = wrapLines('one two three four five', 5, 2, widthOf);
        expect(result.text).to.equal('one two…');
        expect(result.lines.map((line) => result.text.slice(line.start, line.end))).to.equal(['one', 'two…']);
        expect(wrapped('one three four', 5, 2)).to.equal(['one', 'thre…']);
        expect(wrapped('abcdefghij', 2, 2)).to.equal(['ab', 'c…']);
    });
});
