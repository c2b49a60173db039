import type { ErrorCode } from '../../lib/errors';
import type { ResponseObject } from './openapi-types';
import type { RequestHeaderName } from './request-headers';

/** What a route may tell the API reference in `options.plugins.docs`. */
export interface DocsRouteMetadata {
    /**
     * Success responses by status, for a route whose shape the reference cannot
     * tell from its method, path and resource (a redirect, a file, this document).
     */
    responses?: Record<string, ResponseObject>;
    /** Request headers the handler reads (If-Match…), documented as parameters with the errors they bring. */
    headers?: readonly RequestHeaderName[];
    /** Error codes the handler itself answers beyond those the reference derives (`quota_exceeded` on an upload). */
    errors?: ErrorCode[];
    /** What a code means on this route, where the general description (error-codes.ts) does not fit it. */
    errorTexts?: Partial<Record<ErrorCode, string>>;
}

declare module '@hapi/hapi' {
    interface PluginSpecificConfiguration {
        docs?: DocsRouteMetadata;
    }
}
