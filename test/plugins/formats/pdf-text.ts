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
    /** The glyphs' codes in the font: one Arabic letter in two joining forms is two glyphs. pdfkit's code 0 is the font's missing-glyph box (.notdef). */
    glyphs: number[];
    /** The font's PostScript name, without pdfkit's subset tag (`ABCDEF+`). */
    font: string;
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
        let font = '';
        fnArray.forEach((operation, index) => {

            if (operation === pdfjs.OPS.setTextMatrix) {
                [, , , , x, y] = argsArray[index][0];
            }
            else if (operation === pdfjs.OPS.setFont) {
                font = (page.commonObjs.get(argsArray[index][0]) as { name: string }).name.replace(/^[A-Z]{6}\+/, '');
                fontSize = argsArray[index][1];
            }
            else if (operation === pdfjs.OPS.showText) {
                // Glyphs, and numbers between them: adjustments (kerning) in thousandths of the font size, leftwards.
                const shown = argsArray[index][0] as (number | { unicode: string; originalCharCode: number; width: number })[];
                const glyphs = shown.filter((glyph) => typeof glyph === 'object');
                const advance = shown.reduce<number>((sum, glyph) => (typeof glyph === 'number' ? sum - glyph : sum + glyph.width), 0);
                drawn.push({ x, y, width: advance * fontSize / 1000, text: glyphs.map((glyph) => glyph.unicode).join(''), glyphs: glyphs.map((glyph) => glyph.originalCharCode), font });
            }
        });

        return drawn;
    });
}

export const joined = (pieces: DrawnText[]): string => pieces.map((piece) => piece.text).join('');

/** Nothing on the page is drawn as a font's missing-glyph box. */
export const noBoxes = (page: DrawnText[]) => expect(page.filter((drawn) => drawn.glyphs.includes(0)).map((drawn) => drawn.text)).to.equal([]);
export const same = (a: number, b: number) => Math.abs(a - b) < 0.01;

/** Where the persons' notes column's text starts, and where the next column begins. */
export function notesColumn(page: DrawnText[]): { left: number; right: number } {

    return { left: page.find((drawn) => drawn.text === 'notes')!.x, right: page.find((drawn) => drawn.text === 'parent 1 id')!.x };
}

/** The notes cell's lines, top down, each as the pieces drawn on it from left to right, on the row of the person named `firstName` (rows start with an id). */
export function notesLines(page: DrawnText[], firstName: string): DrawnText[][] {

    const { left, right } = notesColumn(page);
    // In the first-name column: a short name such as 'U' can also be the last piece of a wrapped id.
    const firstNameColumn = page.find((drawn) => drawn.text.trim() === 'first')!.x;
    const rowTop = page.find((drawn) => drawn.text === firstName && same(drawn.x, firstNameColumn))!.y;
    const nextRowTop = Math.max(...page.filter((drawn) => drawn.text.startsWith('per_') && drawn.y < rowTop - 0.01).map((drawn) => drawn.y));
    const cell = page.filter((drawn) => drawn.x >= left - 0.01 && drawn.x < right && drawn.y <= rowTop + 0.01 && drawn.y > nextRowTop);
    const lineTops = [...new Set(cell.map((drawn) => drawn.y))].sort((a, b) => b - a);
    return lineTops.map((y) => cell.filter((drawn) => same(drawn.y, y)).sort((a, b) => a.x - b.x));
}

/** A PDF export that must have succeeded, with its text page by page. */
export async function pdfOf(family: FamilyFixture, url: string): Promise<{ pages: string[][]; response: ServerInjectResponse }> {

    const response = await family.inject('GET', url);
    expect(response.statusCode, response.payload).to.equal(200);
    expect(response.headers['content-type']).to.equal('application/pdf');
    expect(response.rawPayload.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    return { pages: await pdfPages(response.rawPayload), response };
}
