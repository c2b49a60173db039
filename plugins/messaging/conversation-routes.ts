import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { withRevisionTag } from '../../lib/entity-tags';
import {
    addGroupMember, createGroup, getConversation, listConversations, markRead, removeGroupMember, renameGroup, startDirectConversation, type ConversationView
} from '../../lib/messaging/conversations';
import { conversationJson } from '../../lib/messaging/serialize';
import { actorOf, managingActor, messagingOf } from './actor';
import { conversationId, jsonBody, pathIds, userId, userText } from './request-schemas';
import { conversationResponses, noContent } from './response-docs';
import { writeRoute, type RouteDeclaration } from './route-declaration';

const answer = (h: ResponseToolkit, view: ConversationView, status = 200) => withRevisionTag(h.response({ data: conversationJson(view) }).code(status), view.conversation.revision);

/** The conversation as the actor sees it now (its members, their unread count). */
const viewOf = (request: Request, id: string) => getConversation(messagingOf(request), actorOf(request), id);

const newConversation = Joi.alternatives().try(
    Joi.object({ kind: Joi.string().valid('direct').required(), user_id: userId.required() }),
    Joi.object({ kind: Joi.string().valid('group').required(), title: userText.required(), member_ids: Joi.array().items(userId).max(1000).unique().default([]) })
).match('one').prefs({ convert: false });

export function conversationRoutes(declare: RouteDeclaration): ServerRoute[] {

    return [
        {
            method: 'GET',
            path: '/conversations',
            options: {
                ...declare('messages:read', conversationResponses.list),
                description: 'Your conversations, the most recently active first, each with its unread count',
                validate: { query: Joi.object({}) }
            },
            async handler(request) {

                const views = await listConversations(messagingOf(request), actorOf(request));
                return { data: views.map(conversationJson) };
            }
        },
        writeRoute({
            method: 'POST',
            path: '/conversations',
            options: {
                ...declare('messages:write', conversationResponses.create),
                description: 'Start a direct conversation (or get the one you have), or a group',
                notes: 'A direct conversation: `{ "kind": "direct", "user_id": "usr_…" }`, 201 when new, 200 with the one you have with that person. '
                    + 'A group: `{ "kind": "group", "title": "…", "member_ids": ["usr_…"] }` (you are in it too), 201. '
                    + 'A person of another family, or no one, is 404; a block between you and the person is 403 `blocked`.',
                payload: jsonBody,
                validate: { query: Joi.object({}), payload: newConversation }
            },
            async handler(request, h) {

                const context = messagingOf(request);
                const actor = actorOf(request);
                const body = request.payload as { kind: 'direct'; user_id: string } | { kind: 'group'; title: string; member_ids: string[] };
                if (body.kind === 'direct') {
                    const { conversation, created } = await startDirectConversation(context, actor, body.user_id);
                    return answer(h, await viewOf(request, conversation.id), created ? 201 : 200);
                }

                const group = await createGroup(context, actor, body.title, body.member_ids);
                return answer(h, await viewOf(request, group.id), 201);
            }
        }),
        {
            method: 'GET',
            path: '/conversations/{id}',
            options: {
                ...declare('messages:read', conversationResponses.read),
                description: 'One of your conversations',
                validate: pathIds({ id: conversationId })
            },
            async handler(request, h) {

                return answer(h, await viewOf(request, request.params.id as string));
            }
        },
        writeRoute({
            method: 'PATCH',
            path: '/conversations/{id}',
            options: {
                ...declare('messages:write', conversationResponses.update),
                description: 'Rename a group',
                notes: 'Its creator or a family manager renames a group (403 `forbidden` for anyone else); a direct conversation has no name (400).',
                payload: jsonBody,
                validate: pathIds({ id: conversationId }, { payload: Joi.object({ title: userText.required() }).prefs({ convert: false }) })
            },
            async handler(request, h) {

                const { title } = request.payload as { title: string };
                await renameGroup(messagingOf(request), await managingActor(request), request.params.id as string, title);
                return answer(h, await viewOf(request, request.params.id as string));
            }
        }),
        writeRoute({
            method: 'POST',
            path: '/conversations/{id}/members',
            options: {
                ...declare('messages:write', conversationResponses.update),
                description: 'Add someone of the family to a group',
                notes: 'Its creator or a family manager adds members (403 `forbidden` for anyone else); adding a member already in changes nothing. '
                    + 'A group has at most the policy\'s `group_max_members`, its creator included (400 past it).',
                payload: jsonBody,
                validate: pathIds({ id: conversationId }, { payload: Joi.object({ user_id: userId.required() }).prefs({ convert: false }) })
            },
            async handler(request, h) {

                const { user_id: member } = request.payload as { user_id: string };
                await addGroupMember(messagingOf(request), await managingActor(request), request.params.id as string, member);
                return answer(h, await viewOf(request, request.params.id as string));
            }
        }),
        writeRoute({
            method: 'DELETE',
            path: '/conversations/{id}/members/{user_id}',
            options: {
                ...declare('messages:write', noContent('Removed: the person no longer sees the group. When it was you, you left it.')),
                description: 'Remove someone from a group, or leave it',
                notes: 'Your own id leaves the group; anyone else\'s removes them, which its creator or a family manager does (403 `forbidden` for anyone else). '
                    + 'A direct conversation cannot be left (400): block the person instead. Someone not in the group is 404.',
                validate: pathIds({ id: conversationId, user_id: userId })
            },
            async handler(request, h) {

                await removeGroupMember(messagingOf(request), await managingActor(request), request.params.id as string, request.params.user_id as string);
                return h.response().code(204);
            }
        }),
        writeRoute({
            method: 'POST',
            path: '/conversations/{id}/read',
            options: {
                ...declare('messages:write', noContent('Marked read up to its latest message: its unread count is 0.')),
                description: 'Mark a conversation read',
                validate: pathIds({ id: conversationId })
            },
            async handler(request, h) {

                await markRead(messagingOf(request), actorOf(request), request.params.id as string);
                return h.response().code(204);
            }
        })
    ];
}
