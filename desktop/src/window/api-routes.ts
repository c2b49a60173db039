import type { Request, ServerRoute } from '@hapi/hapi';

import type { DesktopClient } from '../engine/desktop-client';
import { OfflineError } from '../sdk/errors';
import type { Person } from '../sdk/types';
import { answering, PageRequestError } from './answers';
import { sendRoute } from './send-route';

/** The messages of a conversation the page shows at most: the latest ones. */
const historyLimit = 200;

/** The page's JSON routes: what it reads from the engine's cache, and what it asks the engine to do. */
export function apiRoutes(client: DesktopClient, uploadsDir: string): ServerRoute[] {

    let people: Person[] = [];
    const conversationOf = async (request: Request) => {

        const conversation = await client.store.conversation(request.params.id as string);
        if (!conversation) {
            throw new PageRequestError(404, 'not_found', 'No such conversation here.');
        }

        return conversation;
    };

    return [
        {
            method: 'GET',
            path: '/api/status',
            handler: answering(async () => ({ ...await client.status(), online: client.online }))
        },
        {
            method: 'GET',
            path: '/api/people',
            handler: answering(async () => {

                try {
                    people = await client.api.people();
                }
                catch (error) {
                    // Offline: the people known from before still name the conversations.
                    if (!(error instanceof OfflineError)) {
                        throw error;
                    }
                }

                return { data: people };
            })
        },
        {
            method: 'GET',
            path: '/api/conversations',
            handler: answering(async () => ({ data: await client.store.conversations() }))
        },
        {
            method: 'POST',
            path: '/api/conversations',
            handler: answering(async (request, h) => {

                // `{ user_ids: [one] }` for the direct conversation with that person, or with a title a group.
                const payload = request.payload as { user_ids?: unknown; title?: unknown } | null;
                const userIds = payload?.user_ids;
                if (!Array.isArray(userIds) || userIds.length === 0 || !userIds.every((id) => typeof id === 'string')) {
                    throw new PageRequestError(400, 'invalid_request', 'Choose who the conversation is with.');
                }

                const title = typeof payload?.title === 'string' ? payload.title.trim() : '';
                if (userIds.length > 1 && !title) {
                    throw new PageRequestError(400, 'invalid_request', 'A conversation of more than two is a group: give it a title.');
                }

                const conversation = await client.startConversation(title ? { title, memberIds: userIds } : { with: userIds[0] });
                return h.response({ data: conversation }).code(201);
            })
        },
        {
            method: 'GET',
            path: '/api/conversations/{id}',
            handler: answering(async (request) => {

                const conversation = await conversationOf(request);
                let messages = await client.store.messages(conversation.id, { limit: historyLimit });
                if (messages.length === 0 && client.online) {
                    await client.store.putMessages((await client.api.history(conversation.id, { limit: historyLimit })).data);
                    messages = await client.store.messages(conversation.id, { limit: historyLimit });
                }

                const conflicts = (await client.store.conflicts({ status: 'open' })).filter((conflict) => conflict.conversation_id === conversation.id);
                return { conversation, messages, outbox: await client.store.outboxItems(conversation.id), conflicts };
            })
        },
        {
            method: 'POST',
            path: '/api/conversations/{id}/read',
            handler: answering(async (request, h) => {

                const conversation = await conversationOf(request);
                if (conversation.unread_count > 0) {
                    await client.api.markRead(conversation.id);
                }

                return h.response().code(204);
            })
        },
        sendRoute(client, uploadsDir, conversationOf),
        {
            method: 'GET',
            path: '/api/outbox',
            handler: answering(async () => ({ data: await client.store.outboxItems() }))
        },
        {
            method: 'POST',
            path: '/api/outbox/{seq}/discard',
            handler: answering(async (request) => {

                const seq = Number(request.params.seq);
                if (!(await client.store.outboxItems()).some((item) => item.seq === seq)) {
                    throw new PageRequestError(404, 'not_found', 'No such message in the outbox.');
                }

                return { data: await client.discardOutboxItem(seq) };
            })
        },
        {
            method: 'GET',
            path: '/api/conflicts',
            handler: answering(async () => ({ data: await client.store.conflicts({ status: 'open' }) }))
        },
        {
            method: 'POST',
            path: '/api/conflicts/{id}/resolve',
            handler: answering(async (request) => {

                const payload = request.payload as { action?: string; body?: string } | null;
                const action = payload?.action;
                if (action === 'edit' && typeof payload?.body === 'string' && payload.body.trim()) {
                    return { data: await client.resolve(request.params.id as string, { edit: payload.body }) };
                }

                if (action === 'retry' || action === 'discard') {
                    return { data: await client.resolve(request.params.id as string, action) };
                }

                throw new PageRequestError(400, 'invalid_request', 'Choose retry, discard, or edit with a text.');
            })
        },
        {
            method: 'POST',
            path: '/api/sync',
            handler: answering(async () => {

                // "Try again now": what a reconnection of the stream would do, at once.
                return { data: await client.syncAndFlush() };
            })
        },
        {
            method: 'GET',
            path: '/api/messages/{messageId}/attachments/{uploadId}',
            handler: answering(async (request, h) => {

                const file = await client.api.downloadAttachment(request.params.messageId as string, request.params.uploadId as string);
                // Saved, never shown here: a file's content must not run as a page of this window.
                return h.response(file.body)
                    .type(file.mediaType)
                    .header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`)
                    .header('Content-Security-Policy', 'sandbox');
            })
        }
    ];
}
