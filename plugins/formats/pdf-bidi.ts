/*
 * Text pdfkit cannot lay out itself, in table cells and the family's name in the heading and the
 * foot: right-to-left text (Hebrew, Arabic), and text no one font draws (emoji among Latin; pdfkit
 * lays a text out in one font). pdfkit draws characters in the order they are
 * stored; the Unicode Bidirectional Algorithm (UAX #9, by bidi-js) says in which order to show
 * them, line by line once the text is wrapped. Each line is drawn as its directional runs, each
 * split by font (pdf-fonts.ts), left to right; a left-to-right text comes out of the algorithm as it
 * went in. fontkit, pdfkit's font engine, shapes Arabic (joining forms, ligatures) in stored order
 * and lays a run of a right-to-left script out right to left by itself, so such a run is handed
 * over in stored order; any other run is handed over as it must show.
 */
import bidiFactory, { type EmbeddingLevels } from 'bidi-js';

import type { FontRun, TextFonts } from './pdf-fonts';
import { characterClusters, wrapLines, type LineRange } from './pdf-wrap';

const bidi = bidiFactory();

/** A character of a right-to-left script's blocks (Arabic-Indic digits included), or a right-to-left mark, embedding, override or isolate. */
const rightToLeftCharacter = /[\u0590-\u08ff\u200f\u202b\u202e\u2067\ufb1d-\ufdff\ufe70-\ufefe\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/**
 * A combining mark other than the accents of Latin, Greek and Cyrillic (U+0300–U+036F): a vowel
 * sign of an Indic script or Thai, a variation selector. pdfkit breaks a word too wide for its
 * column between any two characters, which can put such a mark alone at the start of the next line
 * (a Tamil vowel sign drawn on a dotted circle); pdf-wrap.ts breaks only between characters with their marks.
 */
const markOfAnotherScript = /[^\P{M}\u0300-\u036f]/u;

/**
 * Whether pdfkit lays a text out itself (it is the usual case): it is left to right, in one font,
 * and has no mark pdfkit could cut off its character. Any other is laid out here.
 */
export const pdfkitLaysOut = (text: string, fonts: TextFonts): boolean => !fonts.runsOf && !rightToLeftCharacter.test(text) && !markOfAnotherScript.test(text);

/**
 * fontkit's rule: a string is laid out right to left when its first character of a particular
 * script (not punctuation, digits, spaces or marks, which are of none) is of a right-to-left one.
 */
const firstOfAScript = /[^\p{Script=Common}\p{Script=Inherited}\p{Script=Unknown}]/u;
const rightToLeftScript = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Cypriot}\p{Script=Kharoshthi}\p{Script=Phoenician}\p{Script=Lydian}\p{Script=Avestan}\p{Script=Imperial_Aramaic}\p{Script=Inscriptional_Pahlavi}\p{Script=Inscriptional_Parthian}\p{Script=Old_South_Arabian}\p{Script=Old_North_Arabian}\p{Script=Old_Turkic}\p{Script=Meroitic_Cursive}\p{Script=Meroitic_Hieroglyphs}\p{Script=Manichaean}\p{Script=Mende_Kikakui}\p{Script=Nabataean}\p{Script=Palmyrene}\p{Script=Psalter_Pahlavi}]/u;
const fontkitReverses = (text: string): boolean => rightToLeftScript.test(firstOfAScript.exec(text)?.[0] ?? '');

/** One layout call per run (pdfkit's default lays out word by word, which would reverse each word of a run on its own), and no cache of every run measured. */
const wholeRun: PDFKit.Mixins.TextOptions = { features: [] };

/** Characters in reverse order, each kept with its marks (and an emoji with its modifier or joined characters). */
const reversed = (text: string): string => Array.from(text.matchAll(characterClusters), ([cluster]) => cluster).reverse().join('');

/** A piece of the text in runs of one font each, in stored order. */
const fontRuns = (fonts: TextFonts, piece: string): FontRun[] => fonts.runsOf?.(piece) ?? [{ text: piece, font: fonts.font }];

/** A piece's width as drawn, run by run, at the document's current font size. */
const widthOf = (doc: PDFKit.PDFDocument, fonts: TextFonts, piece: string): number => fontRuns(fonts, piece)
    .reduce((sum, run) => sum + doc.font(run.font).widthOfString(run.text, wholeRun), 0);

/**
 * What pdfkit must be given for a run to show in visual order. A right-to-left run of Hebrew or
 * Arabic goes in stored order, its brackets mirrored, for fontkit to shape and reverse; one of
 * punctuation only goes reversed. A left-to-right run goes as it is, unless fontkit would reverse
 * it (Arabic-Indic digits are of the Arabic script): then reversed, for fontkit to turn back.
 */
function drawnText(stored: string, rightToLeft: boolean): string {

    if (!rightToLeft) {
        return fontkitReverses(stored) ? reversed(stored) : stored;
    }

    const mirrored = Array.from(stored, (character) => bidi.getMirroredCharacter(character) ?? character).join('');
    return fontkitReverses(mirrored) ? mirrored : reversed(mirrored);
}

interface Run {
    text: string;
    font: string;
    width: number;
}

/** A line of a cell: its runs from left to right, whether it aligns right (its paragraph is right-to-left), and how far below its top its baseline lies. */
export interface BidiLine {
    runs: Run[];
    width: number;
    alignsRight: boolean;
    baseline: number;
}

/**
 * A line's runs in visual order, from bidi-js's visual order of the text's characters (in which
 * only this line's are reordered): a run is a stretch of one level, stored order forwards or
 * backwards, in one font (a stretch of several fonts is several runs, right to left in a right-to-left one).
 */
function visualRuns(doc: PDFKit.PDFDocument, text: string, fonts: TextFonts, levels: EmbeddingLevels, line: LineRange): Run[] {

    const stretches: { first: number; last: number; level: number }[] = [];
    for (const index of bidi.getReorderedIndices(text, levels, line.start, line.end - 1).slice(line.start, line.end)) {
        const level = levels.levels[index];
        const stretch = stretches.at(-1);
        if (stretch && stretch.level === level && index === stretch.last + (level % 2 ? -1 : 1)) {
            stretch.last = index;
        }
        else {
            stretches.push({ first: index, last: index, level });
        }
    }

    return stretches.flatMap(({ first, last, level }) => {

        const rightToLeft = level % 2 === 1;
        const runs = fontRuns(fonts, text.slice(Math.min(first, last), Math.max(first, last) + 1));
        return (rightToLeft ? runs.reverse() : runs).map(({ text: stored, font }) => {

            const drawn = drawnText(stored, rightToLeft);
            return { text: drawn, font, width: doc.font(font).widthOfString(drawn, wholeRun) };
        });
    });
}

/**
 * A text wrapped to `width`, at most `maxLines` lines (the last cut with `…`), each in visual order,
 * in `fonts` at the document's current font size. Each paragraph's direction is that of its first
 * letter, unless `direction` says: the document's own lines are left-to-right whatever name they hold.
 */
export function bidiLines(doc: PDFKit.PDFDocument, text: string, fonts: TextFonts, width: number, maxLines: number, direction: 'auto' | 'ltr' = 'auto'): BidiLine[] {

    const wrapped = wrapLines(text, width, maxLines, (part) => widthOf(doc, fonts, part));
    const levels = bidi.getEmbeddingLevels(wrapped.text, direction);
    return wrapped.lines.map((line) => {

        const runs = line.end > line.start ? visualRuns(doc, wrapped.text, fonts, levels, line) : [];
        const paragraphLevel = levels.paragraphs.find((paragraph) => line.start <= paragraph.end)?.level ?? 0;
        return { runs, width: runs.reduce((sum, run) => sum + run.width, 0), alignsRight: paragraphLevel % 2 === 1, baseline: fonts.baseline };
    });
}

/** Draws lines from (x, y) down, each aligned by its paragraph's direction within `width`, at the document's current font size. */
export function drawBidiLines(doc: PDFKit.PDFDocument, lines: BidiLine[], x: number, y: number, width: number, lineHeight: number): void {

    lines.forEach((line, index) => {

        let runX = line.alignsRight ? x + width - line.width : x;
        for (const run of line.runs) {
            // On the line's baseline: pdfkit would put each font's own ascent below the line's top.
            doc.font(run.font).text(run.text, runX, y + index * lineHeight + line.baseline, { ...wholeRun, lineBreak: false, baseline: 'alphabetic' });
            runX += run.width;
        }
    });
}

/**
 * Draws a line of the document's own (heading, foot) that pdfkit cannot lay out: left-to-right, a
 * right-to-left name in it in visual order, in the document's current font size and line height. Returns the height taken.
 */
export function drawBidiText(doc: PDFKit.PDFDocument, text: string, fonts: TextFonts, x: number, y: number, width: number, maxLines = Infinity): number {

    const lineHeight = doc.currentLineHeight(true);
    const lines = bidiLines(doc, text, fonts, width, maxLines, 'ltr');
    drawBidiLines(doc, lines, x, y, width, lineHeight);
    return lines.length * lineHeight;
}
