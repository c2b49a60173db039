import { Op, type Transaction, type WhereOptions } from 'sequelize';

import type { Conversation } from '../../models/conversation';
import type { Message, MessageAttachment } from '../../models/message';
import { ServiceError } from '../errors';
import { recordId } from '../ids';
import { hasMoreCharactersThan } from '../text-length';
import { blockedBy, blockedError, eitherBlocked, memberConversation } from './access';
import type { MessagingActor, MessagingContext } from './context';
import { inMessagingWrite } from './conversations';
import { decodeCursor, encodeCursor } from './cursors';

/** An edit or delete that named a revision older than the message's: 412, with the message as it is now. */
export class StaleRevisionError extends ServiceError {
    constructor(readonly current: Message) {

        super('precondition_failed', `Message ${current.id} is at revision ${current.revision} now: fetch it, then try again with that revision.`, 412);
    }
}

/** A message to send: its text, the files it carries (attached in the send's transaction), and for an outbox item its client's time. */
export interface NewMessage {
    body?: string;
    /** Checks and claims the uploads the message names, in the send's transaction (lib/messaging/uploads.ts). */
    attach?: (transaction: Transaction, messageId: string) => Promise<MessageAttachment[]>;
    clientTime?: Date;
    /** Runs in the send's transaction once the message is made: where an idempotent send stores its answer. */
    afterSend?: (transaction: Transaction, message: Message) => Promise<void>;
}

/** The text of a message to send, or 400 invalid_request: too long, or neither text nor files. */
export function checkedBody(context: MessagingContext, body: string | undefined, hasFiles: boolean): string | null {

    const limit = context.policyStore.current().messaging.conversations.message_max_characters;
    if (body !== undefined && hasMoreCharactersThan(body, limit)) {
        throw new ServiceError('invalid_request', `body: a message is at most ${limit} characters.`);
    }

    if (!body?.trim() && !hasFiles) {
        throw new ServiceError('invalid_request', 'body: a message needs text or a file.');
    }

    return body?.trim() ? body : null;
}

/** 403 blocked while a block stands between the two people of a direct conversation (its direct_key names them). */
async function assertNotBlocked(context: MessagingContext, actor: MessagingActor, conversation: Conversation, transaction: Transaction): Promise<void> {

    const other = conversation.direct_key?.split(':').find((userId) => userId !== actor.userId);
    const block = other && await eitherBlocked(context.models, actor.userId, other, transaction);
    if (block) {
        throw blockedError(block);
    }
}

/** Sends a message into one of the actor's conversations. */
export function sendMessage(context: MessagingContext, actor: MessagingActor, conversationId: string, input: NewMessage): Promise<Message> {

    checkedBody(context, input.body, Boolean(input.attach));
    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const conversation = await memberConversation(context.models, actor, conversationId, transaction);
        await assertNotBlocked(context, actor, conversation, transaction);
        const id = recordId('msg');
        const attachments = input.attach ? await input.attach(transaction, id) : [];
        const body = checkedBody(context, input.body, attachments.length > 0);
        // Later than the conversation's last message, even within the same millisecond: its place in the history is the order of sending.
        const now = new Date(Math.max(Date.now(), (conversation.last_message_at?.getTime() ?? 0) + 1));
        const message = await context.models.Message.create({
            id, conversation_id: conversationId, family_long_id: actor.familyLongId, sender_id: actor.userId,
            body, attachments, revision: 1, created_at: now, client_time: input.clientTime ?? null
        }, { transaction });
        await conversation.update({ last_message_at: now }, { transaction });
        await context.models.ConversationMember.update({ last_read_at: now }, { where: { conversation_id: conversationId, user_id: actor.userId }, transaction });
        await log.record({ conversation_id: conversationId, kind: 'message', action: 'created', record_id: message.id, revision: 1 });
        await input.afterSend?.(transaction, message);
        return message;
    });
}

/** The actor's own message, in a conversation they are in, at the revision they saw (412 otherwise). */
async function ownMessage(context: MessagingContext, actor: MessagingActor, messageId: string, expectedRevision: number | undefined, transaction: Transaction): Promise<Message> {

    const message = await context.models.Message.findOne({ where: { id: messageId, family_long_id: actor.familyLongId }, transaction });
    const noMessage = new ServiceError('not_found', `No message ${messageId}.`, 404);
    if (!message) {
        throw noMessage;
    }

    await memberConversation(context.models, actor, message.conversation_id, transaction).catch(() => Promise.reject(noMessage));
    if (message.sender_id !== actor.userId) {
        throw new ServiceError('forbidden', 'Only its sender edits or deletes a message.', 403);
    }

    if (expectedRevision !== undefined && expectedRevision !== message.revision) {
        throw new StaleRevisionError(message);
    }

    if (message.deleted_at) {
        throw new ServiceError('conflict', `Message ${messageId} was deleted.`, 409);
    }

    return message;
}

/** Edits the text of the actor's own message. */
export function editMessage(context: MessagingContext, actor: MessagingActor, messageId: string, body: string, expectedRevision?: number): Promise<Message> {

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const message = await ownMessage(context, actor, messageId, expectedRevision, transaction);
        const conversation = await memberConversation(context.models, actor, message.conversation_id, transaction);
        await assertNotBlocked(context, actor, conversation, transaction);
        await message.update({ body: checkedBody(context, body, message.attachments.length > 0), revision: message.revision + 1, edited_at: new Date() }, { transaction });
        await log.record({ conversation_id: message.conversation_id, kind: 'message', action: 'updated', record_id: message.id, revision: message.revision });
        return message;
    });
}

/**
 * Deletes the actor's own message: it stays in the history as a tombstone (its place, sender and times),
 * without its text and files (their uploads deleted). Resolves to the message and the attachments it had.
 */
export function deleteMessage(context: MessagingContext, actor: MessagingActor, messageId: string,
    expectedRevision?: number): Promise<{ message: Message; removed: MessageAttachment[] }> {

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const message = await ownMessage(context, actor, messageId, expectedRevision, transaction);
        const removed = message.attachments;
        await context.uploads.release(actor.familyLongId, removed.map((attachment) => attachment.upload_id), transaction);
        await message.update({ body: null, attachments: [], revision: message.revision + 1, deleted_at: new Date() }, { transaction });
        await log.record({ conversation_id: message.conversation_id, kind: 'message', action: 'deleted', record_id: message.id, revision: message.revision });
        return { message, removed };
    });
}

/** One message of a conversation the actor is in, unless a group's message from someone they blocked, which history hides too (404 otherwise). */
export async function getMessage(context: MessagingContext, actor: MessagingActor, messageId: string): Promise<Message> {

    const noMessage = new ServiceError('not_found', `No message ${messageId}.`, 404);
    const message = await context.models.Message.findOne({ where: { id: messageId, family_long_id: actor.familyLongId } });
    if (!message) {
        throw noMessage;
    }

    const conversation = await memberConversation(context.models, actor, message.conversation_id).catch(() => Promise.reject(noMessage));
    if (conversation.kind === 'group' && message.sender_id !== actor.userId && (await blockedBy(context.models, actor.userId)).has(message.sender_id)) {
        throw noMessage;
    }

    return message;
}

export interface HistoryPage {
    messages: Message[];
    /** Where the next (older) page starts; null on the last page. */
    nextCursor: string | null;
}

/**
 * A page of a conversation's history, newest first, from `cursor` (a `next_cursor` of an earlier page).
 * In a group, the messages of people the actor blocked are left out.
 */
export async function messageHistory(context: MessagingContext, actor: MessagingActor, conversationId: string, options: { cursor?: string; limit?: number }): Promise<HistoryPage> {

    const policy = context.policyStore.current().messaging.conversations;
    const limit = Math.min(options.limit ?? policy.page_size, policy.max_page_size);
    const before = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const conversation = await memberConversation(context.models, actor, conversationId);
    const blocked = conversation.kind === 'group' ? [...await blockedBy(context.models, actor.userId)] : [];

    const where: WhereOptions<Message> = {
        conversation_id: conversationId,
        ...(blocked.length ? { sender_id: { [Op.notIn]: blocked } } : {}),
        ...(before ? { [Op.or]: [{ created_at: { [Op.lt]: before.time } }, { created_at: before.time, id: { [Op.lt]: before.tiebreak } }] } : {})
    };
    const rows = await context.models.Message.findAll({ where, order: [['created_at', 'DESC'], ['id', 'DESC']], limit: limit + 1 });
    const messages = rows.slice(0, limit);
    const last = messages[messages.length - 1];
    return { messages, nextCursor: rows.length > limit ? encodeCursor({ time: last.created_at, tiebreak: last.id }) : null };
}
