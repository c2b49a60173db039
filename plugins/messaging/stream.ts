import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import type { AuthEpoch } from '../../gateway/auth-epoch';
import type { Reverify } from '../../gateway/reverify';
import { principalOf } from '../../gateway/principal';
import { EventStream } from '../../lib/event-stream/event-stream';
import { StreamHub } from '../../lib/event-stream/hub';
import { openEventStream } from '../../lib/event-stream/open';
import type { Log } from '../../lib/logger';
import type { MessagingBatch } from '../../lib/messaging/changes';
import { recheckOpenConflicts } from '../../lib/messaging/conflicts';
import type { MessagingContext } from '../../lib/messaging/context';
import { actorOf } from './actor';
import { changeCursorSchema } from './change-cursor';
import { BatchViews, RecoveryFeed } from './recovery-feed';

export interface RecoveryStreamOptions {
    routeGroup: string;
    context: MessagingContext;
    authEpoch: AuthEpoch;
    reverify: Reverify;
    log: Log;
}

const notes = [
    'Server-sent events: a `retry:` hint, then `event: ready` (`id:` and `data: {"cursor"}`: where the stream starts), then every messaging change the user sees, '
    + 'as GET /sync\'s entries: `id: <the entry\'s cursor>`, `event: <kind>.<action>` (`message.created`, `member.deleted`, `block.created`…), `data:` the entry. '
    + 'A `: heartbeat` comment keeps an idle stream open.',
    'Resume with the `Last-Event-ID` header or `cursor` (the header wins): the user\'s open conflicts are rechecked, then the changes missed are sent first, in order, then the live ones, none twice. '
    + 'Past the retention window the stream sends `event: reset` (`data: {"reset","reason","message","cursor"}`, `id:` that cursor) instead: sync anew, then carry on from it.',
    'The server ends a stream with `event: close`, `data: {"code","message"}`: `invalid_token` (the device was disconnected), `account_disabled`, `family_suspended`, `messaging_suspended` '
    + '(what a new request would get), `overflow` (the client read too slowly), `shutdown`; reconnect with Last-Event-ID where that helps. '
    + 'Streams per device are capped (policies/messaging.yaml): one more is refused with 429.'
];

/** The recovery stream's hub and route, GET <prefix>/stream: a registration of the messaging plugin has one of each. */
export function recoveryStream(options: RecoveryStreamOptions): { hub: StreamHub<MessagingBatch>; route: ServerRoute } {

    const { context, log } = options;
    const hub = new StreamHub<MessagingBatch>({
        streamName: 'recovery stream',
        holderName: 'device',
        changeBus: context.bus,
        authEpoch: options.authEpoch,
        policyStore: context.policyStore,
        reverify: options.reverify,
        log
    });
    const views = new BatchViews(context);

    const open = async (request: Request, h: ResponseToolkit) => {

        const policy = context.policyStore.current().messaging.stream;
        const credentials = principalOf(request);
        const reader = actorOf(request);
        // A browser's EventSource reconnects to the same URL, cursor included, with the Last-Event-ID of the latest event: the header wins.
        const header = request.headers['last-event-id'] as string | undefined;
        const cursor = header || (request.query as { cursor?: string }).cursor || undefined;
        if (cursor) {
            // A client reconnecting: a conflict whose cause changed meanwhile is updated first, a change the stream replays.
            await recheckOpenConflicts(context, reader);
        }

        const stream = new EventStream<MessagingBatch>({
            request, credentials, holderId: credentials.device!.grantId, familyLongId: reader.familyLongId,
            feed: new RecoveryFeed(context, views, reader, cursor), pacing: policy, log,
            onEnd: (ended) => hub.remove(ended)
        });

        return openEventStream(h, hub, stream, policy.max_streams_per_device, policy);
    };

    const route: ServerRoute = {
        method: 'GET',
        path: '/stream',
        options: {
            auth: options.routeGroup,
            plugins: {
                gateway: { scope: 'messages:read' },
                docs: { responses: { 200: { description: 'The recovery stream (text/event-stream), open until either side closes it.', content: { 'text/event-stream': { schema: { type: 'string' } } } } } }
            },
            tags: ['api', 'messaging'],
            description: 'Every messaging change the user sees, live, as server-sent events',
            notes,
            validate: {
                query: Joi.object({ cursor: changeCursorSchema.allow('').label('cursor').description('Resume after this cursor (sync\'s `next_cursor` or an event\'s id); a Last-Event-ID header wins.') }),
                headers: Joi.object({ 'last-event-id': changeCursorSchema.allow('').label('Last-Event-ID') }).unknown()
            }
        },
        handler: open
    };

    return { hub, route };
}
