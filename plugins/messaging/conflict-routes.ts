import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { principalOf } from '../../gateway/principal';
import { namesStrongly, withRevisionTag } from '../../lib/entity-tags';
import { apiError } from '../../lib/errors';
import { idempotencyKeyOf, requestFingerprint } from '../../lib/idempotency-key-header';
import { discardConflict, getConflict, listConflicts, retryConflict, StaleConflictError, type RetryOutcome, type RevisionCheck } from '../../lib/messaging/conflicts';
import { answerOnce } from '../../lib/messaging/idempotency';
import { conflictJson, messageJson } from '../../lib/messaging/serialize';
import { preconditionsOf } from '../../lib/preconditions';
import { storableText } from '../../lib/storable-text';
import { actorOf } from './actor';

const params = Joi.object({ id: Joi.string().max(100).required() });

/** What If-Match asks of the conflict's revision (its ETag, `"3"`); none sent: nothing. */
function revisionSeen(request: Request): RevisionCheck | undefined {

    const { ifMatch } = preconditionsOf(request);
    return ifMatch && ((revision) => namesStrongly(ifMatch, String(revision)));
}

/** 412 with the conflict as it is now, for a client that named an older revision. */
function answered<T>(work: Promise<T>): Promise<T> {

    return work.catch((error) => {

        if (error instanceof StaleConflictError) {
            const stale = apiError(412, 'precondition_failed', error.message);
            stale.output.payload.current = conflictJson(error.current);
            throw stale;
        }

        throw error;
    });
}

function outcomeJson(result: RetryOutcome): object {

    return result.outcome === 'sent' ?
        { outcome: 'sent', message: messageJson(result.message), conflict: conflictJson(result.conflict) } :
        { outcome: 'conflict', conflict: conflictJson(result.conflict) };
}

/**
 * Answers a resolution (`action` of the conflict in the path) with its data and the conflict's ETag. With an
 * Idempotency-Key, once per device: the same key again replays the first answer (a retry whose answer was lost
 * gets the message it sent), another body under it is 422, a retry while the first runs 409.
 */
async function resolution(request: Request, h: ResponseToolkit, action: string, work: () => Promise<{ data: object; revision: number }>) {

    const key = idempotencyKeyOf(request);
    const answerOf = async () => {

        const { data, revision } = await answered(work());
        return { status: 200, body: { data }, headers: { etag: `"${revision}"` } };
    };

    const answer = key === undefined ? await answerOf() : (await answerOnce(request.server.app.services.models, {
        grantId: principalOf(request).device!.grantId,
        route: `POST /conflicts/{id}/${action}`,
        key,
        fingerprint: requestFingerprint(request.path, request.payload ?? {})
    }, answerOf)).answer;
    const response = h.response(answer.body).code(answer.status);
    return answer.headers?.etag ? response.header('etag', answer.headers.etag) : response;
}

/** GET /conflicts, GET /conflicts/{id}, and their resolution: retry, edit (and retry), discard. */
export function conflictRoutes(routeGroup: string): ServerRoute[] {

    const reading = { auth: routeGroup, plugins: { gateway: { scope: 'messages:read' } } };
    const writing = { auth: routeGroup, plugins: { gateway: { scope: 'messages:write' } } };
    const context = (request: Request) => request.server.app.services.messaging;
    const retried = (request: Request, h: ResponseToolkit, action: string, body?: string) => resolution(request, h, action, async () => {

        const result = await retryConflict(context(request), actorOf(request), request.params.id as string, { seen: revisionSeen(request), body });
        return { data: outcomeJson(result), revision: result.conflict.revision };
    });

    return [
        {
            method: 'GET',
            path: '/conflicts',
            options: {
                ...reading,
                validate: {
                    query: Joi.object({
                        status: Joi.string().valid('open', 'resolved', 'all').default('open'),
                        cursor: Joi.string(),
                        limit: Joi.number().integer().min(1)
                    })
                },
                description: 'The user\'s conflicts in the order their items were refused: open ones, or resolved ones, or all'
            },
            handler: async (request) => {

                const page = await listConflicts(context(request), actorOf(request), request.query);
                return { data: page.conflicts.map(conflictJson), next_cursor: page.nextCursor };
            }
        },
        {
            method: 'GET',
            path: '/conflicts/{id}',
            options: {
                ...reading,
                validate: { params },
                description: 'One of the user\'s conflicts (ETag: its revision)'
            },
            handler: async (request, h) => {

                const conflict = await getConflict(context(request), actorOf(request), request.params.id as string);
                return withRevisionTag(h.response({ data: conflictJson(conflict) }), conflict.revision);
            }
        },
        {
            method: 'POST',
            path: '/conflicts/{id}/retry',
            options: {
                ...writing,
                validate: { params },
                description: 'Sends the conflict\'s item again, through the same rechecks (If-Match: its revision)'
            },
            handler: (request, h) => retried(request, h, 'retry')
        },
        {
            method: 'POST',
            path: '/conflicts/{id}/edit',
            options: {
                ...writing,
                validate: { params, payload: Joi.object({ body: storableText(Joi.string().allow('')).required() }) },
                description: 'Sends the conflict\'s item with another text, through the same rechecks (If-Match: its revision)'
            },
            handler: (request, h) => retried(request, h, 'edit', (request.payload as { body: string }).body)
        },
        {
            method: 'POST',
            path: '/conflicts/{id}/discard',
            options: {
                ...writing,
                validate: { params },
                description: 'Gives the conflict\'s item up: nothing is sent (If-Match: its revision)'
            },
            handler: (request, h) => resolution(request, h, 'discard', async () => {

                const conflict = await discardConflict(context(request), actorOf(request), request.params.id as string, revisionSeen(request));
                return { data: conflictJson(conflict), revision: conflict.revision };
            })
        }
    ];
}
