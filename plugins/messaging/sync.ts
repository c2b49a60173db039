import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { recheckOpenConflicts } from '../../lib/messaging/conflicts';
import type { MessagingContext } from '../../lib/messaging/context';
import { syncChanges } from '../../lib/messaging/sync';
import { actorOf } from './actor';
import { changeCursorSchema } from './change-cursor';

const notes = [
    'The changes of the user\'s conversations (conversations, members, messages) and their own (blocks, conflicts, leaving a group), '
    + 'in commit order, each with `cursor`, `kind`, `action`, `conversation_id`, `record_id`, `revision`, `occurred_at` and `record`, the record as it is now '
    + '(a deleted message is a tombstone; null when the user no longer sees it). The recovery stream sends the same entries.',
    'Answer: `{ "data": [...], "next_cursor", "has_more" }`; carry on with `cursor=next_cursor` while `has_more` is true, then open the stream with it. '
    + 'Without `cursor`, from the oldest change kept.',
    'A page after a cursor (a client carrying on after a disconnect) first rechecks the user\'s open conflicts: one whose cause changed is updated, a change the page carries.',
    'A cursor older than the retention window (or of another deployment) answers 200 `{ "reset": true, "reason": "expired"|"unknown", "message", "cursor" }`: '
    + 'fetch the conversations anew, then carry on from that `cursor`.'
];

/** GET <prefix>/sync: a page of the changes the user sees after a cursor, or the reset that says to start over. */
export function syncRoute(routeGroup: string, context: MessagingContext): ServerRoute {

    return {
        method: 'GET',
        path: '/sync',
        options: {
            auth: routeGroup,
            plugins: { gateway: { scope: 'messages:read' } },
            tags: ['api', 'messaging'],
            description: 'The changes of the user\'s conversations after a cursor, in commit order',
            notes,
            validate: {
                query: Joi.object({
                    cursor: changeCursorSchema.label('cursor').description('Where the last page ended (`next_cursor`), or an event id of the stream.'),
                    limit: Joi.number().integer().min(1).max(5000).description('The most changes the page holds; policies/messaging.yaml\'s `sync_page_size` caps it.')
                })
            }
        },
        handler: async (request: Request) => {

            const { cursor, limit } = request.query as { cursor?: string; limit?: number };
            const actor = actorOf(request);
            if (cursor !== undefined) {
                // A client carrying on after a disconnect: what changed meanwhile may have lifted or changed a conflict's cause.
                await recheckOpenConflicts(context, actor);
            }

            const answer = await syncChanges(context, actor, cursor, limit);
            // A page as the API's other lists: its entries under `data`.
            return 'reset' in answer ? answer : { data: answer.changes, next_cursor: answer.next_cursor, has_more: answer.has_more };
        }
    };
}
