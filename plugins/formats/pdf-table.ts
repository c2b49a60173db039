import type { ResourceDeclaration } from '../../models/resources';
import { bidiLines, drawBidiLines, pdfkitLaysOut, type BidiLine } from './pdf-bidi';
import type { DocumentFonts, FontWeight, TextFonts } from './pdf-fonts';
import { withLineFeeds } from './line-breaks';
import { cellText, columnsOf, columnWidthsOf } from './tables';
import type { ExportRecord } from './types';

/** Column names and timestamps with spaces where a narrow column may wrap them: `first name`, `2026-11-21 09:00:00Z`. */
const headerText = (column: string) => column.replace(/_/g, ' ');
const timestampColumns = new Set(['created_at', 'updated_at']);

/**
 * Text as pdfkit can draw it: it breaks lines at `\n` only and draws any other control character
 * (the `\r` of a Windows line end, a tab) as the font's missing-glyph box. So every line break
 * becomes `\n`, and a tab or other control character a space.
 */
const drawable = (text: string) => withLineFeeds(text).replace(/[\u0000-\u0009\u000e-\u001f\u007f-\u009f]/g, ' ');
const shownText = (column: string, value: unknown) => (timestampColumns.has(column) ? cellText(value).replace('T', ' ').replace(/\.\d{3}Z$/, 'Z') : drawable(cellText(value)));

export const tableFontSize = 7;
const padding = 2.5;
/** A cell shows at most this many lines, then an ellipsis: a snapshot, not the full text of a 20,000-character note. */
const maxLinesPerCell = 12;
/** DejaVu Sans' narrowest characters (`i`, `l`, `'`) are 0.27 em wide: no line of a cell holds more of any than its width allows at that. */
const narrowestCharacterEm = 0.27;

/** `text` cut to at most `length` UTF-16 units, never inside a surrogate pair, then `…`. */
function cutText(text: string, length: number): string {

    return `${text.slice(0, length).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

/** What an empty table shows below its header row. */
const noRecords = { text: 'No records.', fontSize: 9, above: 4 };

/**
 * A cell as it will be drawn, in the fonts that draw its text (pdf-fonts.ts): text pdfkit lays out
 * itself, or lines already in visual order and split by font (pdf-bidi.ts).
 */
interface Cell {
    fonts: TextFonts;
    content: string | BidiLine[];
}

interface RowLayout {
    cells: Cell[];
    height: number;
}

/**
 * A table drawn row by row on a pdfkit document: text wraps within its column, a row that
 * does not fit on the page starts a new page, which repeats the header row.
 */
export class PdfTable {

    private readonly columns: string[];
    private readonly widths: number[];
    private readonly lineHeight: number;
    /** Per column, more characters than its cell can ever show (maxLinesPerCell lines). */
    private readonly maxCharacters: number[];
    private readonly maxTextHeight: number;
    private y = 0;
    private rows = 0;

    constructor(private readonly doc: PDFKit.PDFDocument, resource: ResourceDeclaration, private readonly fonts: DocumentFonts, private readonly newPage: () => void) {

        this.columns = columnsOf(resource);
        const usable = doc.page.width - doc.page.margins.left - doc.page.margins.right;
        this.widths = columnWidthsOf(resource).map((share) => usable * share);
        this.lineHeight = fonts.use('', 'regular').fontSize(tableFontSize).currentLineHeight(true);
        this.maxTextHeight = this.lineHeight * maxLinesPerCell;
        this.maxCharacters = this.widths.map((_, index) => Math.ceil(maxLinesPerCell * this.textWidth(index) / (narrowestCharacterEm * tableFontSize)));
    }

    /** Starts the table at the document's current position. */
    start(): void {

        this.y = this.doc.y;
        this.drawRow(this.headerRow(), '#eeeeee');
    }

    addRow(record: ExportRecord): void {

        this.drawRow(this.recordRow(record));
        this.rows += 1;
    }

    /** Ends the table: one without rows says so. */
    end(): void {

        if (this.rows === 0) {
            this.fonts.use(noRecords.text, 'regular').fontSize(noRecords.fontSize).fillColor('#666666').text(noRecords.text, this.doc.page.margins.left, this.y + noRecords.above);
        }
    }

    /**
     * The height the table's start takes, measured as it will be drawn: the header row and the
     * first row, or for no rows the line that says so. What goes before it on a page must leave that.
     */
    startHeight(first: ExportRecord | undefined): number {

        const firstHeight = first ? this.recordRow(first).height : noRecords.above + this.fonts.use(noRecords.text, 'regular').fontSize(noRecords.fontSize).currentLineHeight(true);
        return this.headerRow().height + firstHeight;
    }

    private headerRow(): RowLayout {

        return this.layOutRow(this.columns.map(headerText), 'bold');
    }

    private recordRow(record: ExportRecord): RowLayout {

        return this.layOutRow(this.columns.map((column) => shownText(column, record[column])), 'regular');
    }

    private layOutRow(texts: string[], weight: FontWeight): RowLayout {

        const cells = texts.map((text, index) => this.cellOf(text, index, weight));
        const textHeights = cells.map(({ fonts, content }, index) => {

            if (typeof content !== 'string') {
                return Math.max(content.length, 1) * this.lineHeight;
            }

            const doc = this.doc.font(fonts.font).fontSize(tableFontSize);
            return content ? Math.min(doc.heightOfString(content, { width: this.textWidth(index) }), this.maxTextHeight) : this.lineHeight;
        });

        return { cells, height: Math.max(...textHeights) + 2 * padding };
    }

    private drawRow({ cells, height }: RowLayout, background?: string): void {

        if (this.y + height > this.doc.page.maxY()) {
            this.newPage();
            this.start();
        }

        const doc = this.doc;
        let x = doc.page.margins.left;
        cells.forEach(({ fonts, content }, index) => {

            const width = this.widths[index];
            if (background) {
                doc.rect(x, this.y, width, height).fill(background);
            }

            doc.rect(x, this.y, width, height).lineWidth(0.4).stroke('#999999');
            doc.font(fonts.font).fontSize(tableFontSize).fillColor('#111111');
            if (typeof content !== 'string') {
                drawBidiLines(doc, content, x + padding, this.y + padding, this.textWidth(index), this.lineHeight);
            }
            else if (content) {
                doc.text(content, x + padding, this.y + padding, { width: this.textWidth(index), height: this.maxTextHeight, ellipsis: true });
            }

            x += width;
        });

        this.y += height;
        doc.x = doc.page.margins.left;
        doc.y = this.y;
    }

    /** A cell's text cut to what can show, with its fonts; text pdfkit cannot lay out (right-to-left, several fonts) also laid out in lines here. */
    private cellOf(text: string, index: number, weight: FontWeight): Cell {

        const shown = this.shownPart(text, index);
        const fonts = this.fonts.of(shown, weight, tableFontSize);
        return { fonts, content: pdfkitLaysOut(shown, fonts) ? shown : bidiLines(this.doc.fontSize(tableFontSize), shown, fonts, this.textWidth(index), maxLinesPerCell) };
    }

    /**
     * What of a cell's text can show, with `…` when cut. pdfkit measures a word wider than its column
     * again for each line it fills, keeping every remainder in a cache: time and memory grow with the
     * square of an unbroken value's length, and a long enough one runs the process out of memory.
     */
    private shownPart(text: string, index: number): string {

        return text.length > this.maxCharacters[index] ? cutText(text, this.maxCharacters[index]) : text;
    }

    private textWidth(index: number): number {

        return this.widths[index] - 2 * padding;
    }
}
