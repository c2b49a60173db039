import type { Request, ResponseToolkit, RouteOptions, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { blockUser, unblockUser } from '../../../lib/messaging/blocks';
import { addGroupMember, createGroup, markRead, removeGroupMember, startDirectConversation } from '../../../lib/messaging/conversations';
import { deleteMessage, editMessage, StaleRevisionError } from '../../../lib/messaging/messages';
import { storableText } from '../../../lib/storable-text';
import { stringOfAtMost, utf16UnitsFor } from '../../../lib/text-length';
import type { Message } from '../../../models/message';
import type { SiteContext } from '../context';
import { formAction, redirectWithNotice } from '../form-action';
import { found, idParam, ticks, type Refusal } from '../forms';
import { signedInPage } from '../route-auth';
import { actorOf, messagingGate } from './actor';
import { composePayload, filesField, sendWithFiles, serveAttachment } from './attachments';
import { conflictRoutes } from './conflict-routes';
import { conversationPage } from './conversation-page';
import { listPage } from './list-page';

// The most the policy may set (lib/accounts/messaging-policy.ts): the service counts the policy's own limit and refuses more in words.
const messageText = storableText(stringOfAtMost(utf16UnitsFor(100_000))).allow('').default('');
const titleText = storableText(stringOfAtMost(utf16UnitsFor(1000))).allow('').default('');

const conversationParams = { conversationId: idParam };
const messageParams = Joi.object({ ...conversationParams, messageId: idParam });
const revision = Joi.number().integer().min(1).required();
/** Where a block or unblock form goes back to: the conversation it was sent from, else the list. */
const backTo = (request: Request) => {

    const { conversation } = request.payload as { conversation?: string };
    return conversation ? `/messages/${conversation}` : '/messages';
};

/** An edit or delete answered with the message as it is now, when it changed since the page was drawn: never a 500. */
async function unlessStale<T>(work: Promise<T>): Promise<T | { stale: Message }> {

    try {
        return await work;
    }
    catch (error) {
        if (error instanceof StaleRevisionError) {
            return { stale: error.current };
        }

        throw error;
    }
}

/** /messages and its forms, for the users of a family whose messaging is open (messagingGate). */
export function messageRoutes(context: SiteContext): ServerRoute[] {

    const { models, messaging } = context;
    const gate = messagingGate(context);
    const page = (options: RouteOptions): RouteOptions => ({ auth: signedInPage, ext: { onPreHandler: { method: gate } }, ...options });
    const conversationIdOf = (request: Request) => request.params.conversationId as string;
    const back = (request: Request) => `/messages/${conversationIdOf(request)}`;
    /** The conversation's page again, saying why the service refused. */
    const refusedOnConversation = (request: Request, h: ResponseToolkit, refusal: Refusal) => conversationPage(context, h, actorOf(request), conversationIdOf(request), {
        error: refusal.message, statusCode: refusal.statusCode
    });
    /** A refused send: the page again, its text kept in the compose box. */
    const sendRefused = (request: Request, h: ResponseToolkit, refusal: Refusal) => conversationPage(context, h, actorOf(request), conversationIdOf(request), {
        error: refusal.message, statusCode: refusal.statusCode, draft: (request.payload as { body: string }).body
    });

    /** An edit's or a delete's answer: back to the conversation, or, when the message changed in between, the page with it as it is now (409). */
    function staleOrBack(notice: 'message-edited' | 'message-deleted', deleting: boolean) {

        return (request: Request, h: ResponseToolkit, outcome: object) => {

            if (!('stale' in outcome)) {
                return redirectWithNotice(h, back(request), notice);
            }

            const { body } = request.payload as { body?: string };
            const stale = { message: outcome.stale as Message, draft: body, deleting };
            return conversationPage(context, h, actorOf(request), conversationIdOf(request), { stale, statusCode: 409 });
        };
    }

    return [
        {
            method: 'GET',
            path: '/messages',
            options: page({ handler: (request, h) => listPage(context, h, actorOf(request)) })
        },
        {
            method: 'POST',
            path: '/messages/direct',
            options: page({
                validate: { payload: Joi.object({ user_id: idParam }) },
                handler: formAction(models, {
                    run: (request) => startDirectConversation(messaging, actorOf(request), (request.payload as { user_id: string }).user_id),
                    refused: (request, h, refusal) => listPage(context, h, actorOf(request), { error: refusal.message, statusCode: refusal.statusCode }),
                    answer: (_request, h, { conversation }) => h.redirect(`/messages/${conversation.id}`)
                })
            })
        },
        {
            method: 'POST',
            path: '/messages/groups',
            options: page({
                validate: { payload: Joi.object({ title: titleText, member_ids: ticks }) },
                handler: formAction(models, {
                    run: (request) => {

                        const { title, member_ids: memberIds } = request.payload as { title: string; member_ids: string[] };
                        return createGroup(messaging, actorOf(request), title, memberIds);
                    },
                    refused: (request, h, refusal) => {

                        const { title, member_ids: memberIds } = request.payload as { title: string; member_ids: string[] };
                        return listPage(context, h, actorOf(request), { error: refusal.message, statusCode: refusal.statusCode, title, memberIds });
                    },
                    answer: (_request, h, conversation) => h.redirect(`/messages/${conversation.id}`)
                })
            })
        },
        {
            method: 'POST',
            path: '/messages/people/{userId}/block',
            options: page({
                validate: { params: Joi.object({ userId: idParam }), payload: Joi.object({ conversation: idParam.optional() }) },
                handler: formAction(models, {
                    run: (request) => found(blockUser(messaging, actorOf(request), request.params.userId as string)),
                    answer: (request, h, { changed }) => redirectWithNotice(h, backTo(request), changed ? 'person-blocked' : 'person-already-blocked')
                })
            })
        },
        {
            method: 'POST',
            path: '/messages/people/{userId}/unblock',
            options: page({
                validate: { params: Joi.object({ userId: idParam }), payload: Joi.object({ conversation: idParam.optional() }) },
                handler: formAction(models, {
                    run: (request) => found(unblockUser(messaging, actorOf(request), request.params.userId as string)),
                    answer: (request, h, { changed }) => redirectWithNotice(h, backTo(request), changed ? 'person-unblocked' : 'person-not-blocked')
                })
            })
        },
        ...conflictRoutes(context, page),
        {
            method: 'GET',
            path: '/messages/{conversationId}',
            options: page({
                validate: { params: Joi.object(conversationParams), query: Joi.object({ cursor: Joi.string().max(100), notice: Joi.string() }) },
                async handler(request, h) {

                    const actor = actorOf(request);
                    const { cursor } = request.query as { cursor?: string };
                    const answer = await found(conversationPage(context, h, actor, conversationIdOf(request), { cursor }));
                    // Read once its latest page is shown; an older page says nothing about the newest messages.
                    if (!cursor) {
                        await markRead(messaging, actor, conversationIdOf(request));
                    }

                    return answer;
                }
            })
        },
        {
            method: 'POST',
            path: '/messages/{conversationId}',
            options: page({
                payload: composePayload(context.policies()),
                validate: { params: Joi.object(conversationParams), payload: Joi.object({ body: messageText, files: filesField }) },
                handler: formAction(models, {
                    run: (request) => sendWithFiles(context, request),
                    refused: sendRefused,
                    answer: (request, h, message) => h.redirect(`${back(request)}#${message.id}`)
                })
            })
        },
        {
            method: 'GET',
            path: '/messages/{conversationId}/files/{uploadId}',
            options: page({
                validate: { params: Joi.object({ ...conversationParams, uploadId: idParam }) },
                handler: (request, h) => serveAttachment(context, request, h)
            })
        },
        {
            method: 'POST',
            path: '/messages/{conversationId}/messages/{messageId}/edit',
            options: page({
                validate: { params: messageParams, payload: Joi.object({ body: messageText, revision }) },
                handler: formAction(models, {
                    run: (request) => {

                        const { body, revision: seen } = request.payload as { body: string; revision: number };
                        return unlessStale(editMessage(messaging, actorOf(request), request.params.messageId as string, body, seen));
                    },
                    refused: refusedOnConversation,
                    answer: staleOrBack('message-edited', false)
                })
            })
        },
        {
            method: 'POST',
            path: '/messages/{conversationId}/messages/{messageId}/delete',
            options: page({
                validate: { params: messageParams, payload: Joi.object({ revision }) },
                handler: formAction(models, {
                    run: (request) => {

                        const { revision: seen } = request.payload as { revision: number };
                        return unlessStale(deleteMessage(messaging, actorOf(request), request.params.messageId as string, seen));
                    },
                    refused: refusedOnConversation,
                    answer: staleOrBack('message-deleted', true)
                })
            })
        },
        {
            method: 'POST',
            path: '/messages/{conversationId}/members',
            options: page({
                validate: { params: Joi.object(conversationParams), payload: Joi.object({ user_id: idParam }) },
                handler: formAction(models, {
                    run: (request) => addGroupMember(messaging, actorOf(request), conversationIdOf(request), (request.payload as { user_id: string }).user_id),
                    refused: refusedOnConversation,
                    answer: (request, h) => redirectWithNotice(h, back(request), 'member-added')
                })
            })
        },
        {
            method: 'POST',
            path: '/messages/{conversationId}/members/{userId}/remove',
            options: page({
                validate: { params: Joi.object({ ...conversationParams, userId: idParam }) },
                handler: formAction(models, {
                    run: (request) => removeGroupMember(messaging, actorOf(request), conversationIdOf(request), request.params.userId as string),
                    refused: refusedOnConversation,
                    answer: (request, h) => redirectWithNotice(h, back(request), 'member-removed')
                })
            })
        },
        {
            method: 'POST',
            path: '/messages/{conversationId}/leave',
            options: page({
                validate: { params: Joi.object(conversationParams) },
                handler: formAction(models, {
                    run: (request) => removeGroupMember(messaging, actorOf(request), conversationIdOf(request), actorOf(request).userId),
                    refused: refusedOnConversation,
                    answer: (_request, h) => redirectWithNotice(h, '/messages', 'group-left')
                })
            })
        }
    ];
}
