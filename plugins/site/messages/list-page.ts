import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

import { listBlocks } from '../../../lib/messaging/blocks';
import type { MessagingActor } from '../../../lib/messaging/context';
import { listConversations, type ConversationView } from '../../../lib/messaging/conversations';
import { utf16UnitsFor } from '../../../lib/text-length';
import type { SiteContext } from '../context';
import { openConflicts } from './conflicts';
import { familyPeople, nameOf } from './people';

/** What a form on the list page sent back when it was refused: its words and what was typed. */
export interface ListForm {
    error: string;
    statusCode: number;
    title?: string;
    memberIds?: string[];
}

/** A conversation's name on the pages: a group's title, or the other person of a direct one. */
export function conversationTitle(view: ConversationView, people: Map<string, string>, actor: MessagingActor): string {

    if (view.conversation.kind === 'group') {
        return view.conversation.title!;
    }

    return nameOf(people, view.memberIds.find((id) => id !== actor.userId) ?? actor.userId);
}

/** /messages: the user's conversations, the forms that start one, the people they blocked and their open conflicts. */
export async function listPage(context: SiteContext, h: ResponseToolkit, actor: MessagingActor, form?: ListForm): Promise<ResponseObject> {

    const [views, people, blocks, conflicts] = await Promise.all([
        listConversations(context.messaging, actor),
        familyPeople(context.models, actor.familyLongId),
        listBlocks(context.messaging, actor),
        openConflicts(context.models, actor)
    ]);
    const titles = new Map(views.map((view) => [view.conversation.id, conversationTitle(view, people, actor)]));
    const blocked = new Set(blocks.map((block) => block.blocked_id));
    const policy = context.messaging.policyStore.current().messaging.conversations;
    const chosen = new Set(form?.memberIds ?? []);

    return h.view('messages', {
        title: 'Messages',
        conversations: views.map((view) => ({
            id: view.conversation.id,
            title: titles.get(view.conversation.id),
            isGroup: view.conversation.kind === 'group',
            memberCount: view.memberIds.length,
            unreadCount: view.unreadCount,
            lastActivity: view.conversation.last_message_at ?? view.conversation.created_at,
            hasMessages: Boolean(view.conversation.last_message_at)
        })),
        people: [...people].filter(([id]) => id !== actor.userId).map(([id, email]) => ({ id, email, blocked: blocked.has(id), chosen: chosen.has(id) })),
        blocks: blocks.map((block) => ({ id: block.blocked_id, email: nameOf(people, block.blocked_id), since: block.created_at })),
        conflicts: conflicts.map((conflict) => ({
            ...conflict,
            conversationTitle: conflict.conversationId ? titles.get(conflict.conversationId) ?? 'A conversation you are no longer in' : undefined
        })),
        titleMaxlength: utf16UnitsFor(policy.group_title_max_characters),
        groupTitle: form?.title,
        error: form?.error
    }).code(form?.statusCode ?? 200);
}
