import type { Plugin, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import Joi from 'joi';

import type { Log } from '../../lib/logger';
import type { ResourceDeclaration } from '../../models/resources';
import { exportResponse } from './export-response';
import { exportFormatsOf } from './renderers';
import type { ExportRequest } from './types';

export type { ExportRecord, ExportRequest, ExportSection } from './types';

export interface FormatsOptions {
    /** Where failures of exports already under way are reported. */
    log: Log;
}

const optionsSchema = Joi.object({ log: Joi.function().required() });

declare module '@hapi/hapi' {
    interface ResponseToolkit {
        /** A streamed CSV, HTML, PDF or GEDCOM response of the sections' records. */
        exportRecords(request: ExportRequest): ResponseObject;
    }

    interface PluginProperties {
        formats: {
            /** The export formats (beyond JSON) that can represent the resource. */
            exportFormatsOf(resource: ResourceDeclaration): string[];
        };
    }
}

/** Export formats: renders lists as CSV, HTML, PDF and GEDCOM for any plugin's handlers. */
export const formatsPlugin: Plugin<FormatsOptions> = {
    name: 'formats',
    register(server, options) {

        const { log } = Joi.attempt(options, optionsSchema, 'formats plugin options:') as FormatsOptions;
        server.expose('exportFormatsOf', exportFormatsOf);
        server.decorate('toolkit', 'exportRecords', function (this: ResponseToolkit, request: ExportRequest) {

            return exportResponse(this, request, log);
        });
    }
};
