import type { Request } from '@hapi/hapi';

import { parseEntityTags } from '../../lib/entity-tags';
import { apiError } from '../../lib/errors';
import { StaleRevisionError } from '../../lib/messaging/messages';
import { messageJson } from '../../lib/messaging/serialize';

/** A record's entity tag is its revision (lib/entity-tags.ts revisionEntity): `"4"`. */
const revisionTag = /^"(\d{1,9})"$/;

/**
 * The revision an edit or delete says it saw: the one entity tag of its If-Match. Without If-Match it is
 * 428 precondition_required (the design has every edit and delete name the revision seen, so a client
 * cannot overwrite a change it never saw by leaving the header out); `*`, a list or a weak tag is 400,
 * naming no one revision.
 */
export function seenRevision(request: Request): number {

    const ifMatch = request.headers['if-match'] as string | undefined;
    if (ifMatch === undefined) {
        throw apiError(428, 'precondition_required', 'If-Match is required: send the ETag of the message as you read it ("4", its revision), so that a change made since is never overwritten.');
    }

    const tags = parseEntityTags(ifMatch);
    const revision = tags && tags !== '*' && tags.length === 1 ? revisionTag.exec(tags[0])?.[1] : undefined;
    if (revision === undefined) {
        throw apiError(400, 'invalid_request', 'If-Match must name the one revision you saw, as its ETag in double quotes: "4" (not *, a list or a weak W/ tag).');
    }

    return Number(revision);
}

/** Runs an edit or delete; a revision gone stale is 412 precondition_failed whose body carries the message as it is now (`current`). */
export async function atSeenRevision<T>(write: () => Promise<T>): Promise<T> {

    try {
        return await write();
    }
    catch (error) {
        if (error instanceof StaleRevisionError) {
            const stale = apiError(412, 'precondition_failed', error.message);
            stale.output.payload.current = messageJson(error.current);
            stale.output.headers.ETag = `"${error.current.revision}"`;
            throw stale;
        }

        throw error;
    }
}
