import type { Request, RouteOptions, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { discardConflict, retryConflict, StaleConflictError, type RevisionCheck } from '../../../lib/messaging/conflicts';
import type { SiteContext } from '../context';
import { formAction, redirectWithNotice } from '../form-action';
import { idParam } from '../forms';
import { actorOf } from './actor';
import { listPage } from './list-page';

const conflictForm = { params: Joi.object({ conflictId: idParam }), payload: Joi.object({ revision: Joi.number().integer().min(1).required() }) };

/** The revision the page showed: a conflict changed since (a device resolved it, a recheck moved its reason) is not resolved blind. */
function seenOn(request: Request): RevisionCheck {

    const { revision: seen } = request.payload as { revision: number };
    return (revision) => revision === seen;
}

/** What a resolution of a conflict changed since the page was drawn comes to: the list again, with it as it is now. */
async function unlessChanged<T>(work: Promise<T>): Promise<T | 'changed'> {

    try {
        return await work;
    }
    catch (error) {
        if (error instanceof StaleConflictError) {
            return 'changed';
        }

        throw error;
    }
}

/** Sending again or discarding, from /messages, a message a device held offline that the service refused (a conflict). */
export function conflictRoutes(context: SiteContext, page: (options: RouteOptions) => RouteOptions): ServerRoute[] {

    const { models, messaging } = context;
    const conflictIdOf = (request: Request) => request.params.conflictId as string;
    return [
        {
            method: 'POST',
            path: '/messages/conflicts/{conflictId}/retry',
            options: page({
                validate: conflictForm,
                handler: formAction(models, {
                    run: (request) => unlessChanged(retryConflict(messaging, actorOf(request), conflictIdOf(request), { seen: seenOn(request) })),
                    refused: (request, h, refusal) => listPage(context, h, actorOf(request), { error: refusal.message, statusCode: refusal.statusCode }),
                    answer: (_request, h, outcome) => redirectWithNotice(h, '/messages', outcome === 'changed' ? 'conflict-changed' : outcome.outcome === 'sent' ? 'conflict-sent' : 'conflict-still-refused')
                })
            })
        },
        {
            method: 'POST',
            path: '/messages/conflicts/{conflictId}/discard',
            options: page({
                validate: conflictForm,
                handler: formAction(models, {
                    run: (request) => unlessChanged(discardConflict(messaging, actorOf(request), conflictIdOf(request), seenOn(request))),
                    refused: (request, h, refusal) => listPage(context, h, actorOf(request), { error: refusal.message, statusCode: refusal.statusCode }),
                    answer: (_request, h, outcome) => redirectWithNotice(h, '/messages', outcome === 'changed' ? 'conflict-changed' : 'conflict-discarded')
                })
            })
        }
    ];
}
