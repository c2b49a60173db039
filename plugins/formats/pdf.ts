import { performance } from 'perf_hooks';
import { Readable } from 'stream';
import { setImmediate as nextTurn } from 'timers/promises';

import PDFDocument from 'pdfkit';

import { drawBidiText, pdfkitLaysOut } from './pdf-bidi';
import { DocumentFonts, type PdfFontSet } from './pdf-fonts';
import { PdfTable } from './pdf-table';
import { generatedText, sectionTitle, wantsLandscape } from './tables';
import type { ExportDocument, ExportRecord, Renderer } from './types';
import { withheldNote } from './withheld';

const margin = 36;
/** The space between a table and the next section's title on the same page. */
const sectionGap = 12;
const sectionTitleStyle = { fontSize: 12, gapBelowLines: 0.3 };
/**
 * Drawing takes about a millisecond a row, and rows of a batch already read arrive without a
 * turn of the event loop: a long export would hold every other request of every family for
 * seconds. It hands the loop back after this long.
 */
const sliceMs = 10;

/**
 * A line of the document's own holding the family's name (under the title, at the foot): pdfkit
 * lays it out when it can, pdf-bidi.ts when it cannot (right-to-left text, several fonts). At most
 * `maxLines`, the last cut with `…`. Returns the height it took.
 */
function drawNameLine(doc: PDFKit.PDFDocument, fonts: DocumentFonts, text: string, style: { fontSize: number; color: string },
    box: { x: number; y: number; width: number; maxLines?: number }): number {

    const textFonts = fonts.of(text, 'regular', style.fontSize);
    doc.font(textFonts.font).fontSize(style.fontSize).fillColor(style.color);
    if (!pdfkitLaysOut(text, textFonts)) {
        return drawBidiText(doc, text, textFonts, box.x, box.y, box.width, box.maxLines);
    }

    const cut = box.maxLines === undefined ? {} : { height: doc.currentLineHeight() * box.maxLines, ellipsis: true };
    doc.text(text, box.x, box.y, { width: box.width, ...cut });
    return doc.y - box.y;
}

/** Every page says what it is and its number, at the foot, outside the area tables fill. */
function drawFooter(doc: PDFKit.PDFDocument, fonts: DocumentFonts, document: ExportDocument, pageNumber: number): void {

    const { left, right, bottom } = doc.page.margins;
    doc.page.margins.bottom = 0;            // writing inside the bottom margin must not start another page
    const y = doc.page.height - bottom / 2 - 4;
    const width = doc.page.width - left - right;
    const pageText = `Page ${pageNumber}`;
    const fontSize = 7;
    // One line beside the page number, cut with `…`: a long family name must not run under it or off the page.
    const titleWidth = width - fonts.use(pageText, 'regular').fontSize(fontSize).widthOfString(pageText) - 12;
    drawNameLine(doc, fonts, `${document.title} · ${document.familyName}`, { fontSize, color: '#666666' }, { x: left, y, width: titleWidth, maxLines: 1 });
    fonts.use(pageText, 'regular').text(pageText, left, y, { width, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
    doc.x = left;
    doc.y = doc.page.margins.top;
}

function drawHeading(doc: PDFKit.PDFDocument, fonts: DocumentFonts, document: ExportDocument): void {

    fonts.use(document.title, 'bold').fontSize(16).fillColor('#111111').text(document.title);
    const top = doc.y;
    const familyLine = `${document.familyName} · generated ${generatedText(document.generatedAt)}${document.redacted ? ` · ${withheldNote}` : ''}`;
    const height = drawNameLine(doc, fonts, familyLine, { fontSize: 9, color: '#444444' }, { x: margin, y: top, width: doc.page.width - 2 * margin });
    doc.x = margin;
    doc.y = top + height;
    doc.moveDown(0.8);
}

/** A section's title, in an export of several resources. */
function drawSectionTitle(doc: PDFKit.PDFDocument, fonts: DocumentFonts, title: string): void {

    fonts.use(title, 'bold').fontSize(sectionTitleStyle.fontSize).fillColor('#111111').text(title, margin, doc.y).moveDown(sectionTitleStyle.gapBelowLines);
}

/** A section's title is one line: a resource's name. */
const sectionTitleHeight = (fonts: DocumentFonts, title: string): number => fonts.use(title, 'bold').fontSize(sectionTitleStyle.fontSize).currentLineHeight(true) * (1 + sectionTitleStyle.gapBelowLines);

/** `rows` read once, its first row known before the loop over them starts. */
async function withFirst(rows: AsyncIterable<ExportRecord>): Promise<{ first: ExportRecord | undefined; rows: AsyncIterable<ExportRecord> }> {

    const iterator = rows[Symbol.asyncIterator]();
    const head = await iterator.next();
    const rest = { [Symbol.asyncIterator]: () => iterator };
    async function* all(): AsyncGenerator<ExportRecord> {

        if (!head.done) {
            yield head.value;
            yield* rest;
        }
    }

    return { first: head.done ? undefined : head.value, rows: all() };
}

/**
 * Draws the document while handing out the bytes pdfkit has produced so far: pull-based, so
 * the database is read only as fast as the client takes the file. Pages are not buffered,
 * hence "Page n" without "of m".
 */
async function* pdfBytes(document: ExportDocument, fontSet: PdfFontSet): AsyncGenerator<Buffer> {

    const doc = new PDFDocument({ autoFirstPage: false, bufferPages: false, margin, info: { Title: `${document.title} · ${document.familyName}`, Creator: 'Family Records API', CreationDate: document.generatedAt } });
    const produced: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => produced.push(chunk));
    const ended = new Promise((resolve, reject) => doc.on('end', resolve).on('error', reject));

    const fonts = new DocumentFonts(doc, fontSet);
    let pageNumber = 0;
    doc.on('pageAdded', () => drawFooter(doc, fonts, document, ++pageNumber));

    let layout: 'portrait' | 'landscape' | undefined;
    const newPage = () => doc.addPage({ size: 'A4', layout, margin });
    if (document.sections.length === 0) {
        newPage();
        drawHeading(doc, fonts, document);
    }

    for (const section of document.sections) {
        const { first, rows } = await withFirst(section.rows);
        const wanted = wantsLandscape(section.resource) ? 'landscape' : 'portrait';
        const sharesPage = wanted === layout;
        if (!sharesPage) {
            layout = wanted;
            newPage();
        }

        const table = new PdfTable(doc, section.resource, fonts, newPage);
        if (sharesPage) {
            // A section shares the page before it (only in /all: one resource is one section) when its
            // title, header row and first row fit below; a title is never left alone at the foot of a page.
            if (doc.y + sectionGap + sectionTitleHeight(fonts, sectionTitle(section.resource)) + table.startHeight(first) <= doc.page.maxY()) {
                doc.y += sectionGap;
            }
            else {
                newPage();
            }
        }

        if (section === document.sections[0]) {
            drawHeading(doc, fonts, document);
        }

        if (document.aggregate) {
            drawSectionTitle(doc, fonts, sectionTitle(section.resource));
        }

        table.start();
        let sliceStart = performance.now();
        for await (const record of rows) {
            table.addRow(record);
            yield* produced.splice(0);
            if (performance.now() - sliceStart > sliceMs) {
                await nextTurn();
                sliceStart = performance.now();
            }
        }

        table.end();
    }

    doc.end();
    await ended;
    yield* produced.splice(0);
}

/** A lightweight printable snapshot: a table per resource, A4, landscape when the columns are many. */
export const pdfRenderer: Renderer = {
    extension: 'pdf',
    contentType: 'application/pdf',
    disposition: 'attachment',
    accepts: () => true,
    render: (document, resources) => Readable.from(pdfBytes(document, resources.pdfFonts), { objectMode: false })
};
