import { pipeline, Readable } from 'stream';

import { Transform as Json2CsvTransform } from '@json2csv/node';

import { columnsOf, unionColumnsOf } from './tables';
import type { ExportDocument, ExportRecord, Renderer } from './types';

/**
 * Cells a spreadsheet would run as a formula: OWASP's list (a leading tab or CR, `= + - @`) and a
 * leading LF, which can hide one on the next line too; `= + - @` also after any Unicode whitespace
 * (spreadsheets skip leading spaces, NBSP and U+3000) and as their full-width forms ＝＋－＠, in
 * case a spreadsheet folds them to ASCII.
 */
const formulaStart = /^(?:[\t\r\n]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/u;
/** RFC 4180: a field holding a quote, a comma or a line break is quoted, its quotes doubled. */
const needsQuotes = /[",\r\n]/;

const quoted = (text: string) => (needsQuotes.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/** A text cell: neutralised with a leading `'` when a spreadsheet would evaluate it, then quoted as RFC 4180 asks. */
export const csvTextCell = (text: string): string => quoted(formulaStart.test(text) ? `'${text}` : text);

/** @json2csv's options for a table of `columns`; bench/csv-export.ts gives @json2csv's own in-memory conversion the same, for the same bytes. */
export const csvOptions = (columns: string[]) => ({ fields: columns, withBOM: true, eol: '\r\n', formatters: { header: quoted, string: csvTextCell } });

async function* tableRows(document: ExportDocument): AsyncGenerator<ExportRecord> {

    for (const section of document.sections) {
        for await (const row of section.rows) {
            yield document.aggregate ? { resource: section.resource.name, ...row } : row;
        }
    }
}

/**
 * CSV through @json2csv/node's streaming transform: UTF-8 with a BOM (so spreadsheets read accents
 * right), CRLF line ends, a header row of the declared columns (and `redacted`, for a key that sees
 * living persons redacted). The aggregate is one table whose
 * leading `resource` column says what each row is, with the union of the resources' columns.
 */
export const csvRenderer: Renderer = {
    extension: 'csv',
    contentType: 'text/csv; charset=utf-8',
    disposition: 'attachment',
    accepts: () => true,
    render(document) {

        const recordColumns = document.aggregate ? unionColumnsOf(document.sections.map((section) => section.resource)) : columnsOf(document.sections[0].resource);
        // A program reading the CSV of a redacted key's export tells a withheld value from an unknown one as in JSON: by `redacted`.
        // The HTML and PDF tables, for reading, say once under their title that living persons' details are withheld.
        const columns = document.redacted ? [...recordColumns, 'redacted'] : recordColumns;
        // Object mode both ways: rows in, each row's CSV text out, which the export's chunk joiner turns into bytes.
        const csv = new Json2CsvTransform(csvOptions(columns), {}, { objectMode: true });

        pipeline(Readable.from(tableRows(document)), csv, () => undefined);     // a failure destroys `csv` with it: the caller reports it
        return csv;
    }
};
