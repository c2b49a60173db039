import { Op, literal, type Transaction } from 'sequelize';

import type { Conversation } from '../../models/conversation';
import type { Message } from '../../models/message';
import type { MessagingChange } from '../../models/messaging-change';
import type { MessagingConflict } from '../../models/messaging-conflict';
import { ServiceError } from '../errors';
import { blockedBy } from './access';
import type { MessagingActor, MessagingContext } from './context';
import { membersOf, unreadCounts } from './conversations';
import { decodeCursor, encodeCursor } from './cursors';
import { conflictJson, conversationJson, messageJson } from './serialize';

const DAY_MS = 24 * 60 * 60 * 1000;

/** One change as sync and the recovery stream send it: what changed, its place (`cursor`), and the record as it is now. */
export interface SyncEntry {
    cursor: string;
    kind: MessagingChange['kind'];
    action: MessagingChange['action'];
    conversation_id: string | null;
    record_id: string;
    revision: number;
    occurred_at: string;
    /** A message (a tombstone once deleted), conversation or conflict as it is now; null when gone or not the user's to see. */
    record: object | null;
}

export type SyncAnswer =
    | { changes: SyncEntry[]; next_cursor: string; has_more: boolean }
    | { reset: true; reason: 'expired' | 'unknown'; message: string; cursor: string };

/** The cursor of a change: its time and its id. */
export const changeCursor = (change: { id: number; occurred_at: Date }): string => encodeCursor({ time: change.occurred_at, tiebreak: String(change.id) });

/** Where a cursor says to carry on from: after a change id. 400 for a cursor that is not of the change log. */
export function positionOf(cursorText: string): { afterId: number; time: Date } {

    const cursor = decodeCursor(cursorText);
    if (!/^\d{1,15}$/.test(cursor.tiebreak)) {
        throw new ServiceError('invalid_request', 'cursor: not a cursor of sync or the stream (a history page\'s cursor is for that history).');
    }

    return { afterId: Number(cursor.tiebreak), time: cursor.time };
}

/** The latest change of the family, as a cursor: where a client that has just fetched everything carries on from. */
export async function latestCursor(context: MessagingContext, familyLongId: string): Promise<string> {

    const latest = await context.models.MessagingChange.findOne({ where: { family_long_id: familyLongId }, order: [['id', 'DESC']], attributes: ['id', 'occurred_at'] });
    return changeCursor(latest ?? { id: 0, occurred_at: new Date() });
}

/**
 * Whether a client can carry on after `cursorText` without a gap: not when the cursor is older
 * than the retention window (the changes after it may be deleted), nor when it names a change
 * this deployment never had. Then the answer is the reset the client gets.
 */
export async function resumeCheck(context: MessagingContext, actor: MessagingActor, cursorText: string): Promise<Extract<SyncAnswer, { reset: true }> | { afterId: number }> {

    const { afterId, time } = positionOf(cursorText);
    const { retention_days: days } = context.policyStore.current().messaging.changes;
    const reset = async (reason: 'expired' | 'unknown', message: string) => ({ reset: true as const, reason, message, cursor: await latestCursor(context, actor.familyLongId) });
    if (time.getTime() < Date.now() - days * DAY_MS) {
        return reset('expired', `This cursor is older than the ${days}-day retention window: fetch your conversations anew, then carry on from this cursor.`);
    }

    const newest = Number(await context.models.MessagingChange.max('id') ?? 0);
    if (afterId > newest) {
        return reset('unknown', 'This cursor is of no change this service has (is it from another deployment?): fetch your conversations anew, then carry on from this cursor.');
    }

    return { afterId };
}

/** The changes the actor sees after `afterId` (up to `upTo`), in commit order: of their conversations, and their own (blocks, conflicts, leaving). */
export function visibleChanges(context: MessagingContext, actor: MessagingActor, afterId: number, limit: number,
    upTo = Number.MAX_SAFE_INTEGER, transaction?: Transaction): Promise<MessagingChange[]> {

    const sequelize = context.models.MessagingChange.sequelize!;
    const theirConversations = literal(`(SELECT conversation_id FROM conversation_members WHERE user_id = ${sequelize.escape(actor.userId)})`);
    return context.models.MessagingChange.findAll({
        where: {
            family_long_id: actor.familyLongId,
            id: { [Op.gt]: afterId, [Op.lte]: upTo },
            [Op.or]: [{ user_id: actor.userId }, { user_id: null, conversation_id: { [Op.in]: theirConversations } }]
        },
        order: [['id', 'ASC']],
        limit,
        transaction
    });
}

/** A change as withRecords reads it: a row of the log, or a change as its bus carried it. */
export type LoggedChange = Pick<MessagingChange, 'id' | 'kind' | 'action' | 'conversation_id' | 'record_id' | 'revision' | 'occurred_at'>;

/** The records some changes name, as they are now: the same whoever reads them. */
export interface ChangedRecords {
    messages: Map<string, Message>;
    conversations: Map<string, Conversation>;
    /** The member ids of each conversation in `conversations`. */
    members: Map<string, string[]>;
    conflicts: Map<string, MessagingConflict>;
}

/** What of the records is the reader's own: whom they blocked, and their unread counts (read only when a conversation changed). */
export interface ReaderState {
    blocked: ReadonlySet<string>;
    unread: ReadonlyMap<string, number>;
}

/** The records the changes name, in a few queries (not one per change). */
export async function changedRecords(context: MessagingContext, familyLongId: string, changes: readonly LoggedChange[]): Promise<ChangedRecords> {

    const idsOf = (kind: MessagingChange['kind']) => [...new Set(changes.filter((change) => change.kind === kind).map((change) => change.record_id))];
    const [messageIds, conversationIds, conflictIds] = [idsOf('message'), idsOf('conversation'), idsOf('conflict')];
    const { models } = context;
    const [messages, conversations, conflicts] = await Promise.all([
        messageIds.length ? models.Message.findAll({ where: { id: messageIds, family_long_id: familyLongId } }) : [],
        conversationIds.length ? models.Conversation.findAll({ where: { id: conversationIds, family_long_id: familyLongId } }) : [],
        conflictIds.length ? models.MessagingConflict.findAll({ where: { id: conflictIds, family_long_id: familyLongId } }) : []
    ]);
    const members = conversations.length ? await membersOf(context, conversations.map((conversation) => conversation.id)) : new Map<string, string[]>();
    const byId = <T extends { id: string }>(records: T[]) => new Map(records.map((record) => [record.id, record]));
    return { messages: byId(messages), conversations: byId(conversations), members, conflicts: byId(conflicts) };
}

/** The reader's own state for `records`. */
async function readerState(context: MessagingContext, actor: MessagingActor, records: ChangedRecords): Promise<ReaderState> {

    const [blocked, unread] = await Promise.all([
        blockedBy(context.models, actor.userId),
        records.conversations.size ? unreadCounts(context, actor) : new Map<string, number>()
    ]);
    return { blocked, unread };
}

/** The changes as the actor gets them, with their records: a blocked sender's group messages left out. */
export function entriesOf(actor: MessagingActor, changes: readonly LoggedChange[], records: ChangedRecords, reader: ReaderState): SyncEntry[] {

    const groups = new Set([...records.conversations.values()].filter((conversation) => conversation.kind === 'group').map((conversation) => conversation.id));
    const { blocked, unread } = reader;
    const hiddenSender = (message: Message) => blocked.has(message.sender_id) && (groups.has(message.conversation_id) || !records.conversations.has(message.conversation_id));

    const recordOf = (change: LoggedChange): object | null => {

        switch (change.kind) {
            case 'message': {
                const message = records.messages.get(change.record_id);
                return message && !hiddenSender(message) ? messageJson(message) : null;
            }

            case 'conversation': {
                const conversation = records.conversations.get(change.record_id);
                const memberIds = conversation && records.members.get(conversation.id);
                return conversation && memberIds?.includes(actor.userId) ? conversationJson({ conversation, memberIds, unreadCount: unread.get(conversation.id) ?? 0 }) : null;
            }

            case 'conflict': {
                const conflict = records.conflicts.get(change.record_id);
                return conflict?.user_id === actor.userId ? conflictJson(conflict) : null;
            }

            default:
                return null;
        }
    };

    return changes
        .filter((change) => change.kind !== 'message' || !records.messages.has(change.record_id) || !hiddenSender(records.messages.get(change.record_id)!))
        .map((change) => ({
            cursor: changeCursor(change),
            kind: change.kind,
            action: change.action,
            conversation_id: change.conversation_id,
            record_id: change.record_id,
            revision: change.revision,
            occurred_at: change.occurred_at.toISOString(),
            record: recordOf(change)
        }));
}

/** The changes with their records as they are now, read a few queries a page (not one per change). */
export async function withRecords(context: MessagingContext, actor: MessagingActor, changes: readonly LoggedChange[]): Promise<SyncEntry[]> {

    const records = await changedRecords(context, actor.familyLongId, changes);
    return entriesOf(actor, changes, records, await readerState(context, actor, records));
}

/**
 * A page of the changes the actor sees after `cursorText` (from the start of the kept log without one),
 * or the reset that says to fetch everything anew.
 */
export async function syncChanges(context: MessagingContext, actor: MessagingActor, cursorText?: string, limit?: number): Promise<SyncAnswer> {

    const pageSize = Math.min(limit ?? Number.MAX_SAFE_INTEGER, context.policyStore.current().messaging.changes.sync_page_size);
    let afterId = 0;
    if (cursorText !== undefined) {
        const resume = await resumeCheck(context, actor, cursorText);
        if ('reset' in resume) {
            return resume;
        }

        afterId = resume.afterId;
    }

    const changes = await visibleChanges(context, actor, afterId, pageSize + 1);
    const page = changes.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
        changes: await withRecords(context, actor, page),
        next_cursor: last ? changeCursor(last) : cursorText ?? await latestCursor(context, actor.familyLongId),
        has_more: changes.length > pageSize
    };
}

/** Deletes the changes past the retention window: what the messaging plugin's schedule runs. Resolves to how many. */
export function deleteExpiredChanges(context: MessagingContext, now = Date.now()): Promise<number> {

    const days = context.policyStore.current().messaging.changes.retention_days;
    return context.models.MessagingChange.destroy({ where: { occurred_at: { [Op.lt]: new Date(now - days * DAY_MS) } } });
}
