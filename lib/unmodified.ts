import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';

/**
 * hapi's `h.entity({ etag, modified })`, with `If-None-Match: *` answered too: the 304 when the
 * client's copy is current, undefined when the representation must be sent. RFC 9110 §13.1.2: `*`
 * matches any current representation, so a GET of one that exists is not modified; hapi compares
 * listed tags only. With `modified` (an HTTP date), every response carries it as `Last-Modified`
 * and `If-Modified-Since` is answered, when no `If-None-Match` was sent. The 304 carries the ETag,
 * as hapi's does (`h.entity()` noted it on the request).
 */
export function unmodified(request: Request, h: ResponseToolkit, etag: string, modified?: string): ResponseObject | undefined {

    return h.entity({ etag, modified }) ?? (request.headers['if-none-match'] === '*' ? h.response().code(304) : undefined);
}
