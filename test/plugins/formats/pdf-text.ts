import { expect } from '@hapi/code';
import type { ServerInjectResponse } from '@hapi/hapi';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';

import type { FamilyFixture } from '../../helpers/server';

/** Reads every page of a PDF with pdf.js, Mozilla's PDF reader. */
async function eachPage<T>(bytes: Buffer, read: (page: pdfjs.PDFPageProxy) => Promise<T>): Promise<T[]> {

    const pdf = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false }).promise;
    const pages: T[] = [];
    for (let number = 1; number <= pdf.numPages; number++) {
        pages.push(await read(await pdf.getPage(number)));
    }

    await pdf.destroy();
    return pages;
}

/** The text of every page of a PDF, as pdf.js extracts it: one string per text run. */
export function pdfPages(bytes: Buffer): Promise<string[][]> {

    return eachPage(bytes, async (page) => {

        const content = await page.getTextContent();
        return content.items.map((item) => ('str' in item ? item.str : '')).filter(Boolean);
    });
}

/** One text-showing operation of a page: where it starts and ends, and its glyphs in the order they are drawn, left to right. */
export interface DrawnText {
    x: number;
    y: number;
    width: number;
    /** The glyphs' characters, in drawing order: the visual order, not the order the text is read in. */
    text: string;
    /** The glyphs' codes in the font: one Arabic letter in two joining forms is two glyphs. */
    glyphs: number[];
}

/**
 * What every page draws, operation by operation, read from its drawing operations. pdf.js's text
 * extraction gives right-to-left text back in reading order, whatever order it was drawn in, so it
 * cannot tell a line drawn backwards. pdfkit places each piece of text with its own text matrix.
 */
export function drawnTexts(bytes: Buffer): Promise<DrawnText[][]> {

    return eachPage(bytes, async (page) => {

        const { fnArray, argsArray } = await page.getOperatorList();
        const drawn: DrawnText[] = [];
        let x = 0;
        let y = 0;
        let fontSize = 0;
        fnArray.forEach((operation, index) => {

            if (operation === pdfjs.OPS.setTextMatrix) {
                [, , , , x, y] = argsArray[index][0];
            }
            else if (operation === pdfjs.OPS.setFont) {
                fontSize = argsArray[index][1];
            }
            else if (operation === pdfjs.OPS.showText) {
                // Glyphs, and numbers between them: adjustments (kerning) in thousandths of the font size, leftwards.
                const shown = argsArray[index][0] as (number | { unicode: string; originalCharCode: number; width: number })[];
                const glyphs = shown.filter((glyph) => typeof glyph === 'object');
                const advance = shown.reduce<number>((sum, glyph) => (typeof glyph === 'number' ? sum - glyph : sum + glyph.width), 0);
                drawn.push({ x, y, width: advance * fontSize / 1000, text: glyphs.map((glyph) => glyph.unicode).join(''), glyphs: glyphs.map((glyph) => glyph.originalCharCode) });
            }
        });

        return drawn;
    });
}

/** A PDF export that must have succeeded, with its text page by page. */
export async function pdfOf(family: FamilyFixture, url: string): Promise<{ pages: string[][]; response: ServerInjectResponse }> {

    const response = await family.inject('GET', url);
    expect(response.statusCode, response.payload).to.equal(200);
    expect(response.headers['content-type']).to.equal('application/pdf');
    expect(response.rawPayload.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    return { pages: await pdfPages(response.rawPayload), response };
}
