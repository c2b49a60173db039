import type { Request } from '@hapi/hapi';

import { namesStrongly, parseEntityTags, type EntityTags } from './entity-tags';
import { apiError } from './errors';

/**
 * What a request asks of the current version of what it changes or reads before it is carried out
 * (RFC 9110 §13.1.1, §13.1.4): its entity tag is one of `ifMatch`, or it has not changed since `ifUnmodifiedSince`.
 */
export interface Preconditions {
    ifMatch?: EntityTags;
    /** An HTTP date, in milliseconds since the epoch. */
    ifUnmodifiedSince?: number;
}

/** The current version's validators: its entity tag (unquoted, as hapi's `h.entity()` takes it) and when it last changed. */
export interface Validators {
    etag: string;
    lastModified: Date;
}

/**
 * The preconditions a request sends, in RFC 9110 §13.2.2's order: If-Match when there is one (not `*`
 * or entity tags: a 400 naming it), else If-Unmodified-Since, which is ignored when it is not a date (§13.1.4).
 */
export function preconditionsOf(request: Request): Preconditions {

    const ifMatch = request.headers['if-match'] as string | undefined;
    if (ifMatch !== undefined) {
        const tags = parseEntityTags(ifMatch);
        if (!tags) {
            throw apiError(400, 'invalid_request', 'If-Match must be * or one or more entity tags, each in double quotes and separated by commas: "4", or "4", "5" (the ETag you read).');
        }

        return { ifMatch: tags };
    }

    const since = Date.parse((request.headers['if-unmodified-since'] as string | undefined) ?? '');
    return Number.isNaN(since) ? {} : { ifUnmodifiedSince: since };
}

const failed = (reason: string, advice: string) => apiError(412, 'precondition_failed', `${reason}: ${advice}`);

/**
 * Throws 412 `precondition_failed` when a precondition does not hold of `current`; `advice` says what
 * the client can do then. A caller changing what it checks has it locked already, so that of two
 * requests sent with the same If-Match exactly one is carried out.
 */
export function assertPreconditions(preconditions: Preconditions, current: Validators, advice: string): void {

    if (preconditions.ifMatch && !namesStrongly(preconditions.ifMatch, current.etag)) {
        throw failed(`If-Match does not name the current ETag, "${current.etag}"`, advice);
    }

    // An HTTP date has whole seconds: a change within the second the date names is not later than it.
    const lastModified = Math.floor(current.lastModified.getTime() / 1000) * 1000;
    if (preconditions.ifUnmodifiedSince !== undefined && lastModified > preconditions.ifUnmodifiedSince) {
        throw failed(`If-Unmodified-Since is before the last change, ${current.lastModified.toUTCString()}`, advice);
    }
}
