import type { ErrorCode } from '../../lib/errors';
import type { JsonSchema, ResponseObject } from './openapi-types';
import type { RequestHeaderName } from './request-headers';

/** What a route may tell the API reference in `options.plugins.docs`. */
export interface DocsRouteMetadata {
    /**
     * Success responses by status, for a route whose shape the reference cannot
     * tell from its method, path and resource (a redirect, a file, this document).
     */
    responses?: Record<string, ResponseObject>;
    /** Named schemas its responses refer to (`#/components/schemas/<name>`), put in the document's components. */
    schemas?: Record<string, JsonSchema>;
    /** Request headers the handler reads (If-Match…), documented as parameters with the errors they bring. */
    headers?: readonly RequestHeaderName[];
    /** Those of `headers` the route requires (If-Match on a messaging edit). */
    requiredHeaders?: readonly RequestHeaderName[];
    /** What a header means on this route, where the general description (request-headers.ts) does not fit it. */
    headerTexts?: Partial<Record<RequestHeaderName, string>>;
    /** Error codes the handler itself answers beyond those the reference derives (`quota_exceeded` on an upload). */
    errors?: readonly ErrorCode[];
    /** What a code means on this route, where the general description (error-codes.ts) does not fit it. */
    errorTexts?: Partial<Record<ErrorCode, string>>;
    /** Fields an error of that code carries on this route besides the Error schema's (a stale edit's `current` record). */
    errorFields?: Partial<Record<ErrorCode, Record<string, JsonSchema>>>;
}

declare module '@hapi/hapi' {
    interface PluginSpecificConfiguration {
        docs?: DocsRouteMetadata;
    }
}
