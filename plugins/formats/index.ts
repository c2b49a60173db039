import type { Plugin, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import Joi from 'joi';

import type { Log } from '../../lib/logger';
import type { ResourceDeclaration } from '../../models/resources';
import { exportResponse } from './export-response';
import { PdfFontSet } from './pdf-fonts';
import { exportFormatsOf, mediaTypeOf } from './renderers';
import type { ExportRequest, RenderResources } from './types';

export type { ExportRecord, ExportRequest, ExportSection } from './types';

export interface FormatsOptions {
    /** Where failures of exports already under way are reported. */
    log: Log;
    /** Font files for what DejaVu Sans cannot draw in PDF exports (PDF_FALLBACK_FONTS). */
    pdfFallbackFonts: string[];
}

const optionsSchema = Joi.object({ log: Joi.function().required(), pdfFallbackFonts: Joi.array().items(Joi.string()).required() });

declare module '@hapi/hapi' {
    interface ResponseToolkit {
        /** A streamed CSV, HTML, PDF or GEDCOM response of the sections' records. */
        exportRecords(request: ExportRequest): Promise<ResponseObject>;
    }

    interface PluginProperties {
        formats: {
            /** The export formats (beyond JSON) that can represent the resource. */
            exportFormatsOf(resource: ResourceDeclaration): string[];
            /** The media type an export format is sent as, without its parameters (`text/csv`). */
            mediaTypeOf(format: string): string;
        };
    }
}

/** Export formats: renders lists as CSV, HTML, PDF and GEDCOM for any plugin's handlers. */
export const formatsPlugin: Plugin<FormatsOptions> = {
    name: 'formats',
    register(server, options) {

        const { log, pdfFallbackFonts } = Joi.attempt(options, optionsSchema, 'formats plugin options:') as FormatsOptions;
        const resources: RenderResources = { pdfFonts: new PdfFontSet(pdfFallbackFonts) };
        server.expose('exportFormatsOf', exportFormatsOf);
        server.expose('mediaTypeOf', mediaTypeOf);
        server.decorate('toolkit', 'exportRecords', function (this: ResponseToolkit, request: ExportRequest) {

            return exportResponse(this, request, resources, log);
        });
    }
};
