import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';

import { blockedBy, eitherBlocked } from '../../../lib/messaging/access';
import type { MessagingActor } from '../../../lib/messaging/context';
import { getConversation } from '../../../lib/messaging/conversations';
import { messageHistory } from '../../../lib/messaging/messages';
import { utf16UnitsFor } from '../../../lib/text-length';
import type { Message } from '../../../models/message';
import type { SiteContext } from '../context';
import { isolated } from '../isolated';
import { composeFiles } from './attachments';
import { conversationTitle } from './list-page';
import { familyPeople, nameOf } from './people';

/** What the conversation page shows besides the conversation: a refusal in words, the text being written, an edit that came too late. */
export interface ConversationForm {
    cursor?: string;
    error?: string;
    statusCode?: number;
    /** The text of a refused send, kept in the compose box. */
    draft?: string;
    /** An edit or delete of a message that changed in between: the message as it is now, and the text the user typed. */
    stale?: { message: Message; draft?: string; deleting: boolean };
}

const blockWords = {
    by_actor: 'You have blocked this person: unblock them to write to them.',
    by_other: 'This person does not accept your messages: you cannot write to them.'
} as const;

const messageView = (people: Map<string, string>, actor: MessagingActor, message: Message) => ({
    id: message.id,
    sender: message.sender_id === actor.userId ? 'You' : nameOf(people, message.sender_id),
    isOwn: message.sender_id === actor.userId,
    body: message.body,
    deleted: Boolean(message.deleted_at),
    editedAt: message.edited_at,
    createdAt: message.created_at,
    revision: message.revision,
    attachments: message.attachments
});

/** /messages/{id}: a page of the conversation's history (oldest of the page first), its members and what the user may do. */
export async function conversationPage(context: SiteContext, h: ResponseToolkit, actor: MessagingActor, conversationId: string,
    form: ConversationForm = {}): Promise<ResponseObject> {

    const view = await getConversation(context.messaging, actor, conversationId);
    const [history, people, blocked, membership, family] = await Promise.all([
        messageHistory(context.messaging, actor, conversationId, { cursor: form.cursor }),
        familyPeople(context.models, actor.familyLongId),
        blockedBy(context.models, actor.userId),
        context.models.ConversationMember.findOne({ where: { conversation_id: conversationId, user_id: actor.userId }, attributes: ['last_read_at'] }),
        context.models.Family.findByPk(actor.familyLongId, { attributes: ['plan'] })
    ]);
    const { conversation } = view;
    const isGroup = conversation.kind === 'group';
    const manages = isGroup && (conversation.created_by === actor.userId || actor.isManager);
    const other = isGroup ? undefined : view.memberIds.find((id) => id !== actor.userId);
    const block = other ? await eitherBlocked(context.models, actor.userId, other) : undefined;
    const members = new Set(view.memberIds);
    const policy = context.messaging.policyStore.current().messaging.conversations;
    const stale = form.stale;
    const name = conversationTitle(view, people, actor);
    // What the user had not read before this page was drawn (markRead follows it): as unreadCounts() counts.
    const lastReadAt = membership?.last_read_at;
    const unread = (message: Message) => message.sender_id !== actor.userId && !message.deleted_at && (!lastReadAt || message.created_at > lastReadAt);

    return h.view('conversation', {
        title: isolated(name),
        heading: name,
        conversation: { id: conversation.id, isGroup, createdBy: nameOf(people, conversation.created_by) },
        messages: history.messages.map((message) => ({ ...messageView(people, actor, message), isNew: unread(message) })).reverse(),
        olderCursor: history.nextCursor,
        isOlderPage: Boolean(form.cursor),
        members: view.memberIds.map((id) => ({ id, email: nameOf(people, id), isYou: id === actor.userId, blocked: blocked.has(id), removable: manages && id !== actor.userId })),
        addable: manages ? [...people].filter(([id]) => !members.has(id)).map(([id, email]) => ({ id, email })) : [],
        manages,
        blockNotice: block && blockWords[block],
        bodyMaxlength: utf16UnitsFor(policy.message_max_characters),
        draft: form.draft,
        files: composeFiles(context.policies(), family!.plan),
        stale: stale && { ...messageView(people, actor, stale.message), draft: stale.draft ?? stale.message.body, deleting: stale.deleting },
        error: form.error
    }).code(form.statusCode ?? 200);
}
