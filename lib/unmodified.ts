import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';

import { namesWeakly, parseEntityTags } from './entity-tags';

/** What `h.entity()` takes: the entity tag (unquoted), the Last-Modified date, whether the tag changes with the content coding (default true). */
export interface Entity {
    etag: string;
    modified?: string;
    vary?: boolean;
}

/**
 * hapi's `h.entity(entity)`, with what hapi leaves out of If-None-Match answered too: the 304 when the
 * client's copy is current, undefined when the representation must be sent. RFC 9110 §13.1.2: `*`
 * matches any current representation, so a GET of one that exists is not modified, and the comparison
 * is weak, `W/"4"` naming `"4"`, which hapi does only for a tag that varies with the content coding.
 * With `modified` (an HTTP date), every response carries it as `Last-Modified` and `If-Modified-Since`
 * is answered, when no `If-None-Match` was sent. The 304 carries the ETag, as hapi's does (`h.entity()`
 * noted it on the request).
 */
export function unmodified(request: Request, h: ResponseToolkit, entity: Entity): ResponseObject | undefined {

    const notModified = h.entity(entity);
    if (notModified) {
        return notModified;
    }

    const tags = parseEntityTags((request.headers['if-none-match'] as string | undefined) ?? '');
    return tags && namesWeakly(tags, entity.etag) ? h.response().code(304) : undefined;
}
