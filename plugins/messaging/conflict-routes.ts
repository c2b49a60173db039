import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { namesStrongly, withRevisionTag } from '../../lib/entity-tags';
import { apiError } from '../../lib/errors';
import { discardConflict, getConflict, listConflicts, retryConflict, StaleConflictError, type RetryOutcome, type RevisionCheck } from '../../lib/messaging/conflicts';
import { conflictJson, messageJson } from '../../lib/messaging/serialize';
import { preconditionsOf } from '../../lib/preconditions';
import { storableText } from '../../lib/storable-text';
import { actorOf } from './actor';
import { writeRoute } from './route-declaration';

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
 * Answers a resolution with its data and the conflict's ETag. Its route is a writeRoute(): with an Idempotency-Key,
 * the same key again replays the first answer (a retry whose answer was lost gets the message it sent).
 */
async function resolution(h: ResponseToolkit, work: () => Promise<{ data: object; revision: number }>) {

    const { data, revision } = await answered(work());
    return withRevisionTag(h.response({ data }), revision);
}

/** GET /conflicts, GET /conflicts/{id}, and their resolution: retry, edit (and retry), discard. */
export function conflictRoutes(routeGroup: string): ServerRoute[] {

    const reading = { auth: routeGroup, plugins: { gateway: { scope: 'messages:read' } } };
    const writing = { auth: routeGroup, plugins: { gateway: { scope: 'messages:write' } } };
    const context = (request: Request) => request.server.app.services.messaging;
    const retried = (request: Request, h: ResponseToolkit, body?: string) => resolution(h, async () => {

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
        writeRoute({
            method: 'POST',
            path: '/conflicts/{id}/retry',
            options: {
                ...writing,
                validate: { params },
                description: 'Sends the conflict\'s item again, through the same rechecks (If-Match: its revision)'
            },
            handler: (request, h) => retried(request, h)
        }),
        writeRoute({
            method: 'POST',
            path: '/conflicts/{id}/edit',
            options: {
                ...writing,
                validate: { params, payload: Joi.object({ body: storableText(Joi.string().allow('')).required() }) },
                description: 'Sends the conflict\'s item with another text, through the same rechecks (If-Match: its revision)'
            },
            handler: (request, h) => retried(request, h, (request.payload as { body: string }).body)
        }),
        writeRoute({
            method: 'POST',
            path: '/conflicts/{id}/discard',
            options: {
                ...writing,
                validate: { params },
                description: 'Gives the conflict\'s item up: nothing is sent (If-Match: its revision)'
            },
            handler: (request, h) => resolution(h, async () => {

                const conflict = await discardConflict(context(request), actorOf(request), request.params.id as string, revisionSeen(request));
                return { data: conflictJson(conflict), revision: conflict.revision };
            })
        })
    ];
}
