import type { Conflict, Conversation, Message } from '../../src/sdk/types';

/* Wire records as the service sends them, for the store's tests. */

export function conversation(id: string, fields: Partial<Conversation> = {}): Conversation {

    return {
        id,
        kind: 'group',
        title: `Title of ${id}`,
        created_by: 'usr_owner',
        member_ids: ['usr_owner', 'usr_other'],
        unread_count: 0,
        revision: 1,
        created_at: '2025-01-01T10:00:00.000Z',
        updated_at: '2025-01-01T10:00:00.000Z',
        last_message_at: null,
        ...fields
    };
}


export function message(id: string, conversationId: string, createdAt: string, fields: Partial<Message> = {}): Message {

    return {
        id,
        conversation_id: conversationId,
        sender_id: 'usr_owner',
        body: `Body of ${id}`,
        attachments: [],
        deleted: false,
        revision: 1,
        created_at: createdAt,
        edited_at: null,
        deleted_at: null,
        client_time: null,
        ...fields
    };
}


export function conflict(id: string, fields: Partial<Conflict> = {}): Conflict {

    return {
        id,
        conversation_id: 'cnv_1',
        reason: 'blocked',
        message: 'The recipient blocked you',
        item: { idempotency_key: `key-${id}`, conversation_id: 'cnv_1', client_time: '2025-01-01T10:00:00.000Z', body: `Refused text of ${id}` },
        after_message_id: null,
        status: 'open',
        resolution: null,
        actions: ['retry', 'edit', 'discard'],
        revision: 1,
        created_at: '2025-01-01T10:00:00.000Z',
        resolved_at: null,
        ...fields
    };
}
