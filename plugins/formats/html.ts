import { Readable } from 'stream';

import { cellText, columnsOf, columnWidthsOf, generatedText, sectionTitle, wantsLandscape } from './tables';
import type { ExportDocument, ExportSection, Renderer } from './types';
import { withheldNote } from './withheld';

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;' };

/** Text safe in HTML element content and in quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => entities[character]);

const styles = `
body { font: 10pt/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; margin: 2em; }
h1 { font-size: 16pt; margin: 0 0 .2em; }
h2 { font-size: 13pt; margin: 1.6em 0 .4em; }
.meta { color: #555; margin: 0 0 1em; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border: 1px solid #ccc; padding: .25em .45em; text-align: start; vertical-align: top; overflow-wrap: anywhere; }
th { background: #f2f2f2; }
td { white-space: pre-wrap; }
.empty { color: #777; font-style: italic; }
@media print {
  body { margin: 0; font-size: 8pt; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
  h2 { break-after: avoid; }
  .landscape { page: landscape; }
}
@page landscape { size: landscape; }`;

/** Printed on landscape pages, as the PDF: a table of many columns (and the heading above the first). Other pages are the reader's choice. */
const pageClass = (section: ExportSection) => (wantsLandscape(section.resource) ? ' class="landscape"' : '');

async function* sectionHtml(section: ExportSection, headed: boolean): AsyncGenerator<string> {

    const columns = columnsOf(section.resource);
    yield `<section${pageClass(section)}>\n${headed ? `<h2>${escapeHtml(sectionTitle(section.resource))}</h2>\n` : ''}`;
    // Fixed widths by what each column holds (as the PDF's): left to the browser, every column shrinks to its header's width once the
    // table is wider than the page, an id breaks after each character and a long note fills pages 4 characters wide.
    const widths = columnWidthsOf(section.resource).map((share) => `<col style="width: ${(share * 100).toFixed(2)}%">`).join('');
    yield `<table>\n<colgroup>${widths}</colgroup>\n<thead><tr>${columns.map((column) => `<th scope="col">${escapeHtml(column)}</th>`).join('')}</tr></thead>\n<tbody>\n`;
    let rows = 0;
    for await (const row of section.rows) {
        rows += 1;
        // Each value takes the direction of its own text: a Hebrew or Arabic name reads right to left, and its neighbours' text stays in order.
        yield `<tr>${columns.map((column) => `<td dir="auto">${escapeHtml(cellText(row[column]))}</td>`).join('')}</tr>\n`;
    }

    if (rows === 0) {
        yield `<tr><td class="empty" colspan="${columns.length}">No records.</td></tr>\n`;
    }

    yield '</tbody>\n</table>\n</section>\n';
}

async function* pageHtml(document: ExportDocument): AsyncGenerator<string> {

    const title = escapeHtml(document.title);
    yield `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n`;
    yield `<title>${title} · ${escapeHtml(document.familyName)}</title>\n<style>${styles}\n</style>\n</head>\n<body${pageClass(document.sections[0])}>\n`;
    yield `<h1>${title}</h1>\n<p class="meta"><bdi>${escapeHtml(document.familyName)}</bdi> · generated <time datetime="${document.generatedAt.toISOString()}">${generatedText(document.generatedAt)}</time>${document.redacted ? ` · ${escapeHtml(withheldNote)}` : ''}</p>\n`;
    for (const section of document.sections) {
        yield* sectionHtml(section, document.aggregate);
    }

    yield '</body>\n</html>\n';
}

/** A printable, self-contained page: inline styles only, nothing loaded, every value escaped. */
export const htmlRenderer: Renderer = {
    extension: 'html',
    contentType: 'text/html; charset=utf-8',
    disposition: 'inline',
    // Defence in depth behind the escaping: the page may load and run nothing, only its own styles apply.
    headers: { 'content-security-policy': 'default-src \'none\'; style-src \'unsafe-inline\'; base-uri \'none\'; form-action \'none\'; frame-ancestors \'none\'' },
    accepts: () => true,
    render: (document) => Readable.from(pageHtml(document), { objectMode: false })
};
