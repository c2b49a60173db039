import type { Message } from '../../models/message';
import type { MessagingConflict } from '../../models/messaging-conflict';
import type { ConversationView } from './conversations';

/** The JSON of a conversation, in the API, in sync and on the stream alike. */
export function conversationJson(view: ConversationView): object {

    const { conversation } = view;
    return {
        id: conversation.id,
        kind: conversation.kind,
        title: conversation.title,
        created_by: conversation.created_by,
        member_ids: view.memberIds,
        unread_count: view.unreadCount,
        revision: conversation.revision,
        created_at: conversation.created_at.toISOString(),
        updated_at: conversation.updated_at.toISOString(),
        last_message_at: conversation.last_message_at?.toISOString() ?? null
    };
}

/** The JSON of a message; a deleted one is a tombstone (`deleted: true`, no text, no files). */
export function messageJson(message: Message): object {

    return {
        id: message.id,
        conversation_id: message.conversation_id,
        sender_id: message.sender_id,
        body: message.body,
        attachments: message.attachments,
        deleted: Boolean(message.deleted_at),
        revision: message.revision,
        created_at: message.created_at.toISOString(),
        edited_at: message.edited_at?.toISOString() ?? null,
        deleted_at: message.deleted_at?.toISOString() ?? null,
        client_time: message.client_time?.toISOString() ?? null
    };
}

/** The JSON of a conflict: the item the client sent, intact, why it was refused, and what the user can do. */
export function conflictJson(conflict: MessagingConflict): object {

    return {
        id: conflict.id,
        conversation_id: conflict.conversation_id,
        reason: conflict.reason,
        message: conflict.message,
        item: conflict.item,
        after_message_id: conflict.after_message_id,
        status: conflict.status,
        resolution: conflict.resolution ?? null,
        actions: conflict.status === 'open' ? ['retry', 'edit', 'discard'] : [],
        revision: conflict.revision,
        created_at: conflict.created_at.toISOString(),
        resolved_at: conflict.resolved_at?.toISOString() ?? null
    };
}
