import type { ResponseObject } from '@hapi/hapi';

/** One entity tag (RFC 9110 §8.8.3): `"…"`, or weak `W/"…"`; what it quotes holds no `"`, space or control character. */
const entityTag = '(?:W/)?"[\\x21\\x23-\\x7e\\x80-\\xff]*"';

/** A list of them, with the white space and the empty elements RFC 9110 §5.6.1 lets a sender put between them. */
const entityTagList = new RegExp(`^[ \\t,]*${entityTag}(?:[ \\t]*,[ \\t,]*${entityTag})*[ \\t,]*$`);

/** What an If-Match names: any current representation (`*`), or entity tags as written, quotes and `W/` included. */
export type EntityTags = '*' | string[];

/**
 * An If-Match value (RFC 9110 §13.1.1; If-None-Match, which hapi reads, has the same grammar): `*`, or
 * its entity tags; undefined when it is neither. A tag may hold a comma, so the list is matched whole,
 * never split at commas.
 */
export function parseEntityTags(value: string): EntityTags | undefined {

    if (value === '*') {
        return '*';
    }

    return entityTagList.test(value) ? value.match(new RegExp(entityTag, 'g'))! : undefined;
}

/**
 * Whether `tags` name the entity tag `etag` (unquoted, as hapi's `h.entity()` takes it) by strong
 * comparison (RFC 9110 §8.8.3.2), as If-Match asks: a weak tag never matches, not even `W/` and the same quoted text.
 */
export const namesStrongly = (tags: EntityTags, etag: string): boolean => tags === '*' || tags.includes(`"${etag}"`);

/**
 * The tags a client got from a compressed answer as the tags they were made from. hapi appends the content
 * coding to a tag that varies with it (`"<sha256>-gzip"`, `h.entity()` with `vary`), and reads such a tag
 * back in If-None-Match itself, but not in If-Match, which the service checks: there the file's tag is
 * the same file whichever coding it came in.
 */
export const withoutContentCoding = (tags: EntityTags): EntityTags => (tags === '*' ? tags : tags.map((tag) => tag.replace(/-(?:gzip|deflate)"$/, '"')));

/**
 * Whether `tags` name the entity tag `etag` by weak comparison (RFC 9110 §8.8.3.2), as If-None-Match
 * asks: `W/"4"` names `"4"` too, as a cache or proxy that weakened the tag would send it back.
 */
export const namesWeakly = (tags: EntityTags, etag: string): boolean => namesStrongly(tags, etag) || tags.includes(`W/"${etag}"`);

/**
 * A record's entity tag, in hapi's terms (`h.entity()`): its revision, strong, `"4"` on the wire, so a
 * client can also build it from the `revision` of a list or a webhook. It names the record's revision,
 * not the bytes sent (a gallery item's signed links change with time while its revision does not),
 * hence one tag whatever the content coding: `vary: false`, or hapi would append `-gzip` to it.
 */
export const revisionEntity = (revision: number) => ({ etag: String(revision), vary: false });

/** `response` with the ETag of the record at `revision` (revisionEntity()): a create's 201, an update's 200. */
export function withRevisionTag(response: ResponseObject, revision: number): ResponseObject {

    const { etag, vary } = revisionEntity(revision);
    return response.etag(etag, { weak: false, vary });
}
