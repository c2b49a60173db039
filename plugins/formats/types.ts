import type { Readable } from 'stream';

import type { ResourceDeclaration } from '../../models/resources';
import type { PdfFontSet } from './pdf-fonts';

/** A record as the API serialises it: `id`, the declared fields, `revision`, `created_at`, `updated_at`. */
export type ExportRecord = Readonly<Record<string, unknown>>;

/** One resource's part of an export. */
export interface ExportSection {
    resource: ResourceDeclaration;
    /**
     * The section's records, in the export's order. Every iteration reads them afresh from the
     * database, so a renderer that needs two passes (GEDCOM) may iterate twice.
     */
    rows: AsyncIterable<ExportRecord>;
}

/** What a handler asks of `h.exportRecords()`. */
export interface ExportRequest {
    /** An export format (`csv`, `html`, `pdf`, `gedcom`): JSON stays with the handler. */
    format: string;
    familyName: string;
    /**
     * The aggregate `/api/v1/all`: one section per resource in scope, as one document titled
     * "All records" (`…-all-….csv`); otherwise one resource's list, titled by the resource.
     */
    aggregate: boolean;
    sections: ExportSection[];
}

/** What a renderer draws. */
export interface ExportDocument {
    title: string;
    familyName: string;
    generatedAt: Date;
    aggregate: boolean;
    /**
     * The export is for a key that sees living persons redacted: their records' hidden fields come
     * empty (a person's name "Living"), each row carries `redacted`, and the document says so.
     */
    redacted: boolean;
    /** Only the sections the renderer accepts. */
    sections: ExportSection[];
}

/** What the formats plugin holds for every export of its deployment, for the renderers that need it. */
export interface RenderResources {
    pdfFonts: PdfFontSet;
}

/** One export format: its HTTP metadata and how it turns records into bytes. */
export interface Renderer {
    extension: string;
    contentType: string;
    /** `attachment` downloads a file; `inline` shows it in the browser. */
    disposition: 'attachment' | 'inline';
    /** Extra response headers (a Content-Security-Policy for HTML). */
    headers?: Readonly<Record<string, string>>;
    /** Whether the format can represent this resource at all. */
    accepts(resource: ResourceDeclaration): boolean;
    /** A byte stream that reads the rows only as fast as its reader takes the output. */
    render(document: ExportDocument, resources: RenderResources): Readable;
}
