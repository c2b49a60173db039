import { once } from 'events';
import { Readable } from 'stream';

import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

import { principalOf } from '../../gateway/principal';
import { apiError } from '../../lib/errors';
import { requestLogFields, type Log } from '../../lib/logger';
import { inLargerChunks } from './chunks';
import { contentDisposition } from './file-name';
import { renderers, resourcesOf } from './renderers';
import { sectionTitle } from './tables';
import type { ExportRequest, RenderResources } from './types';

/**
 * The streamed response of an export. The status and headers leave with the export's first bytes
 * (its first 64 KiB, or all of a smaller one), once records were read: a database that fails before
 * them, one that does not answer, is an error response (a 503 to retry). A failure part-way, after
 * them, cannot become an error response any more: it is logged and the connection is cut, which a
 * client sees as an incomplete download rather than a complete file.
 */
export async function exportResponse(h: ResponseToolkit, request: ExportRequest, resources: RenderResources, log: Log): Promise<ResponseObject> {

    const renderer = renderers[request.format];
    if (!renderer) {
        throw new Error(`No renderer for format "${request.format}": the route's validation should have refused it`);
    }

    const sections = request.sections.filter((section) => renderer.accepts(section.resource));
    if (sections.length === 0) {
        throw apiError(400, 'invalid_request', `format=${request.format} exports ${resourcesOf(request.format).join(', ')}: this API key reaches none of them`);
    }

    const generatedAt = new Date();
    const redacted = principalOf(h.request).scopes.livingPersons === 'redacted';
    const subject = request.aggregate ? { title: 'All records', fileStem: 'all' } : { title: sectionTitle(request.sections[0].resource), fileStem: request.sections[0].resource.name };
    // A HEAD gets the GET's headers and no body: hapi would render the whole export (every record read, a PDF drawn) to throw it away.
    const body = h.request.method === 'head' ? Readable.from([], { objectMode: false }) :
        inLargerChunks(renderer.render({ title: subject.title, familyName: request.familyName, generatedAt, aggregate: request.aggregate, redacted, sections }, resources));

    await once(body, 'readable');           // rejects with the error of a stream that fails before its first bytes
    body.on('error', (error: Error) => log(['formats', 'error'], `${request.format} export of ${subject.fileStem} failed part-way (request ${h.request.requestId}): ${error.stack ?? error.message}`, requestLogFields(h.request)));

    const response = h.response(body)
        .type(renderer.contentType)
        .header('content-disposition', contentDisposition(renderer.disposition, request.familyName, subject.fileStem, generatedAt, renderer.extension))
        .header('x-content-type-options', 'nosniff');

    for (const [name, value] of Object.entries(renderer.headers ?? {})) {
        response.header(name, value);
    }

    return response;
}
