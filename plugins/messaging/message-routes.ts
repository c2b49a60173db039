import type { ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Transaction } from 'sequelize';

import { revisionEntity, withRevisionTag } from '../../lib/entity-tags';
import { contentDisposition } from '../../lib/file-name-text';
import { attachmentFile } from '../../lib/messaging/attachment-files';
import { deleteMessage, editMessage, getMessage, messageHistory, sendMessage } from '../../lib/messaging/messages';
import { messageJson } from '../../lib/messaging/serialize';
import { unmodified } from '../../lib/unmodified';
import type { Message } from '../../models/message';
import { actorOf, messagingOf } from './actor';
import { conversationId, jsonBody, maxAttachments, messageId, pathIds, uploadId, userText } from './request-schemas';
import { historyResponse, messageResponses, staleMessageFields } from './response-docs';
import { atSeenRevision, seenRevision } from './revisions';
import { answerKeeperOf, writeRoute, type RouteDeclaration } from './route-declaration';

const answer = (h: ResponseToolkit, message: Message, status = 200) => withRevisionTag(h.response({ data: messageJson(message) }).code(status), message.revision);

/** What an edit or delete says of If-Match in the reference: required, one revision, and its 412 carrying the message. */
const revisionDocs = {
    headers: ['If-Match'],
    requiredHeaders: ['If-Match'],
    headerTexts: {
        'If-Match': 'Required: the ETag of the message as you read it, `"4"` (its `revision` in double quotes). When the message has changed since, nothing is done: '
            + '412 `precondition_failed`, whose `current` is the message as it is now. Without it, 428 `precondition_required`; `*`, a list or a weak tag is 400.'
    },
    errors: ['precondition_required', 'forbidden', 'conflict'],
    errorFields: { precondition_failed: staleMessageFields },
    errorTexts: {
        forbidden: 'The message is someone else\'s: only its sender edits or deletes it.',
        conflict: 'The message was deleted: a tombstone is not edited or deleted again.'
    }
} as const;

export function messageRoutes(declare: RouteDeclaration): ServerRoute[] {

    return [
        {
            method: 'GET',
            path: '/conversations/{id}/messages',
            options: {
                ...declare('messages:read', historyResponse),
                description: 'A conversation\'s history, newest first, a page at a time',
                notes: 'Deleted messages stay in their place as tombstones. In a group, the messages of people you blocked are left out.',
                validate: pathIds({ id: conversationId }, {
                    query: Joi.object({
                        cursor: Joi.string().max(80).description('Where the previous page ended: its `next_cursor`.'),
                        limit: Joi.number().integer().min(1).max(1000).description('How many messages; at most the policy\'s `max_page_size` (200 unless changed), its `page_size` (50) without it.')
                    })
                })
            },
            async handler(request) {

                const { cursor, limit } = request.query as { cursor?: string; limit?: number };
                const page = await messageHistory(messagingOf(request), actorOf(request), request.params.id as string, { cursor, limit });
                return { data: page.messages.map(messageJson), next_cursor: page.nextCursor };
            }
        },
        writeRoute({
            method: 'POST',
            path: '/conversations/{id}/messages',
            options: {
                ...declare('messages:write', { ...messageResponses.send, requiredHeaders: ['Idempotency-Key'], errors: ['blocked'] }),
                description: 'Send a message',
                notes: '`Idempotency-Key` is required: a retry with the same key and body answers the message sent the first time, never a second one. '
                    + 'A block between the two people of a direct conversation is 403 `blocked`.',
                payload: jsonBody,
                validate: pathIds({ id: conversationId }, {
                    payload: Joi.object({
                        body: userText,
                        upload_ids: Joi.array().items(uploadId).min(1).max(maxAttachments).unique().description('Finished uploads (POST /uploads) the message carries.')
                    }).or('body', 'upload_ids').prefs({ convert: false })
                })
            },
            async handler(request, h) {

                const { body, upload_ids: uploadIds } = request.payload as { body?: string; upload_ids?: string[] };
                const actor = actorOf(request);
                const messaging = messagingOf(request);
                const keep = answerKeeperOf(request);
                const afterSend = keep && ((transaction: Transaction, message: Message) => keep(transaction, { status: 201, body: { data: messageJson(message) }, headers: { etag: '"1"' } }));
                const attach = uploadIds && ((transaction: Transaction, id: string) => messaging.uploads.claim(actor, id, uploadIds, transaction));
                return answer(h, await sendMessage(messaging, actor, request.params.id as string, { body, attach, afterSend }), 201);
            }
        }, { keyRequired: true }),
        {
            method: 'GET',
            path: '/messages/{id}',
            options: {
                ...declare('messages:read', { ...messageResponses.read, headers: ['If-None-Match'] }),
                description: 'One message of a conversation you are in',
                validate: pathIds({ id: messageId })
            },
            async handler(request, h) {

                const message = await getMessage(messagingOf(request), actorOf(request), request.params.id as string);
                return unmodified(request, h, revisionEntity(message.revision)) ?? answer(h, message);
            }
        },
        {
            method: 'GET',
            path: '/messages/{id}/attachments/{upload_id}',
            options: {
                ...declare('messages:read', messageResponses.attachment),
                description: 'A file a message carries',
                notes: 'To the members of its conversation only; always `Content-Disposition: attachment`, with a name safe to save as.',
                validate: pathIds({ id: messageId, upload_id: uploadId })
            },
            async handler(request, h) {

                const messaging = messagingOf(request);
                const actor = actorOf(request);
                const message = await getMessage(messaging, actor, request.params.id as string);
                const file = await attachmentFile({ models: messaging.models, files: request.server.app.services.uploadFiles, policies: () => messaging.policyStore.current() },
                    actor, { messageId: message.id }, request.params.upload_id as string);
                return h.response(file.bytes)
                    .type(file.mediaType)
                    .header('content-disposition', contentDisposition('attachment', file.fileName))
                    .header('x-content-type-options', 'nosniff');
            }
        },
        writeRoute({
            method: 'PATCH',
            path: '/messages/{id}',
            options: {
                ...declare('messages:write', { ...messageResponses.update, ...revisionDocs, errors: [...revisionDocs.errors, 'blocked'] }),
                description: 'Edit your message',
                payload: jsonBody,
                validate: pathIds({ id: messageId }, { payload: Joi.object({ body: userText.required() }).prefs({ convert: false }) })
            },
            async handler(request, h) {

                const { body } = request.payload as { body: string };
                return answer(h, await atSeenRevision(() => editMessage(messagingOf(request), actorOf(request), request.params.id as string, body, seenRevision(request))));
            }
        }),
        writeRoute({
            method: 'DELETE',
            path: '/messages/{id}',
            options: {
                ...declare('messages:write', { ...messageResponses.delete, ...revisionDocs }),
                description: 'Delete your message, leaving a tombstone in its place',
                validate: pathIds({ id: messageId })
            },
            async handler(request, h) {

                const { message } = await atSeenRevision(() => deleteMessage(messagingOf(request), actorOf(request), request.params.id as string, seenRevision(request)));
                return answer(h, message);
            }
        })
    ];
}
