import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { principalOf } from '../../gateway/principal';
import { isApiTimestamp } from '../../lib/api-timestamp';
import { recordIdPattern } from '../../lib/ids';
import { idempotencyKeyText } from '../../lib/idempotency-key-header';
import type { OutboxItem } from '../../lib/messaging/conflicts';
import { flushOutbox } from '../../lib/messaging/outbox';
import { storableText } from '../../lib/storable-text';
import { actorOf } from './actor';
import { writeRoute } from './route-declaration';

const item = Joi.object<OutboxItem, true>({
    idempotency_key: Joi.string().pattern(idempotencyKeyText).required()
        .messages({ 'string.pattern.base': '{{#label}} must be 1 to 255 printable ASCII characters (a UUID, say)' }),
    conversation_id: Joi.string().pattern(recordIdPattern('cnv')).required()
        .messages({ 'string.pattern.base': '{{#label}} must be a conversation id (cnv_…)' }),
    client_time: Joi.string().custom((value: string, helpers) => (isApiTimestamp(value) ? value : helpers.error('any.invalid'))).required()
        .messages({ 'any.invalid': '{{#label}} must be a UTC time as the API writes them: 2026-12-06T18:30:00.000Z' }),
    body: storableText(Joi.string().allow('')),
    upload_ids: Joi.array().items(Joi.string().min(1).max(100)).max(100).unique()
});

/** POST /outbox: the desktop client's offline items, applied in order once it reconnects. */
export function outboxRoutes(routeGroup: string, prefix: string): ServerRoute[] {

    // An Idempotency-Key of the flush's own replays its whole answer; each item is sent once per its own key anyway.
    return [writeRoute({
        method: 'POST',
        path: '/outbox',
        options: {
            auth: routeGroup,
            // A disabled user's or suspended family's flush comes through: each item becomes an account_disabled conflict, none is lost.
            plugins: { gateway: { scope: 'messages:write', accountStateInHandler: true } },
            validate: { payload: Joi.object({ items: Joi.array().items(item).required() }) },
            description: 'Sends the offline outbox: each item sent once per idempotency key, or kept as a conflict in its place'
        },
        handler: async (request) => {

            const { items } = request.payload as { items: OutboxItem[] };
            const flusher = { grantId: principalOf(request).device!.grantId, prefix };
            return { data: await flushOutbox(request.server.app.services.messaging, actorOf(request), flusher, items) };
        }
    })];
}
