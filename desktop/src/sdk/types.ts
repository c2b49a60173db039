/* The records of /messaging/v1 as the service sends them (docs/messaging.md). */

export interface Conversation {
    id: string;
    kind: 'direct' | 'group';
    title: string | null;
    created_by: string;
    member_ids: string[];
    unread_count: number;
    revision: number;
    created_at: string;
    updated_at: string;
    last_message_at: string | null;
}

export interface Attachment {
    upload_id: string;
    file_name: string;
    media_type: string;
    size_bytes: number;
}

export interface Message {
    id: string;
    conversation_id: string;
    sender_id: string;
    body: string | null;
    attachments: Attachment[];
    deleted: boolean;
    revision: number;
    created_at: string;
    edited_at: string | null;
    deleted_at: string | null;
    client_time: string | null;
}

export type ConflictReason = 'account_disabled' | 'storage_quota' | 'conversation_access' | 'blocked' | 'attachment_policy';

export interface OutboxItemWire {
    idempotency_key: string;
    conversation_id: string;
    client_time: string;
    body?: string;
    upload_ids?: string[];
}

export interface Conflict {
    id: string;
    conversation_id: string | null;
    reason: ConflictReason;
    message: string;
    item: OutboxItemWire;
    after_message_id: string | null;
    status: 'open' | 'resolved';
    resolution: 'retried' | 'edited' | 'discarded' | null;
    actions: Array<'retry' | 'edit' | 'discard'>;
    revision: number;
    created_at: string;
    resolved_at: string | null;
}

export type OutboxOutcome =
    | { outcome: 'sent' | 'duplicate'; idempotency_key: string; message: Message }
    | { outcome: 'conflict'; idempotency_key: string; conflict: Conflict };

export interface Change {
    cursor: string;
    kind: 'conversation' | 'member' | 'message' | 'block' | 'conflict';
    action: 'created' | 'updated' | 'deleted';
    conversation_id: string | null;
    record_id: string;
    revision: number | null;
    occurred_at: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the record of its kind: a Conversation, Message or Conflict
    record: any | null;
}

export interface SyncReset {
    reset: true;
    reason: 'expired' | 'unknown';
    message: string;
    cursor: string;
}

export type SyncPage = { data: Change[]; next_cursor: string; has_more: boolean } | SyncReset;

/** GET /messaging/v1/me: whom the device speaks for, what it may do, and until when its access token holds. */
export interface Me {
    user: { id: string; email: string };
    family: { id: string; name: string };
    device: { id: string; name: string; client_id: string };
    scopes: string[];
    token_expires_at: string;
}

export interface Person {
    id: string;
    email: string;
    blocked: boolean;
}

export interface Block {
    user_id: string;
    created_at: string;
}

/** GET /messaging/v1/uploads/{id}. */
export interface UploadRecord {
    id: string;
    file_name: string;
    size_bytes: number;
    offset_bytes: number;
    complete: boolean;
    media_type: string | null;
    attached: boolean;
    expires_at: string | null;
}

/** What a conflict's retry or edit came to. */
export interface ConflictResolution {
    outcome: 'sent' | 'conflict';
    message?: Message;
    conflict: Conflict;
}
