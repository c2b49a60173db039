import { Op, type Transaction, type WhereOptions } from 'sequelize';

import type { Message } from '../../models/message';
import type { ConflictResolution, MessagingConflict } from '../../models/messaging-conflict';
import { ServiceError } from '../errors';
import { recordId } from '../ids';
import { blockedBy } from './access';
import { openMessagingChangeLog, type MessagingChangeLog } from './changes';
import type { MessagingActor, MessagingContext } from './context';
import { inMessagingWrite } from './conversations';
import { decodeCursor, encodeCursor } from './cursors';
import { storeAnswer, type IdempotentAnswer } from './idempotency';
import { currentRefusal, RecheckRefusal, sendRechecked, type ItemMessage, type Refusal } from './rechecks';
import { conflictJson, messageJson } from './serialize';

/** An offline outbox item as the client sent it (POST /messaging/v1/outbox); a conflict keeps it so. */
export interface OutboxItem extends ItemMessage {
    idempotency_key: string;
}

/*
 * An outbox item's Idempotency-Key is the send route's (per device): an item sent online and then from the outbox,
 * or the other way round, makes one message. The key's answer is the item's message once sent, else its conflict.
 */

/** The route an item's key is scoped to: the send's. */
export const itemKeyRoute = 'POST /conversations/{id}/messages';

/** The answer an item's key keeps once its message is sent: the send route's. */
export const sentAnswer = (message: Message): IdempotentAnswer => ({ status: 201, body: { data: messageJson(message) } });

/** The answer an item's key keeps while it is a conflict, in the shape of an error: a send with that key replays it. */
export const conflictAnswer = (conflict: MessagingConflict): IdempotentAnswer => ({
    status: 409,
    body: { statusCode: 409, error: 'Conflict', code: 'conflict', message: `This message became conflict ${conflict.id}: ${conflict.message}`, conflict: conflictJson(conflict) }
});

/** An If-Match that named a revision older than the conflict's: 412, with the conflict as it is now. */
export class StaleConflictError extends ServiceError {
    constructor(readonly current: MessagingConflict) {

        super('precondition_failed', `Conflict ${current.id} is at revision ${current.revision} now: fetch it, then try again with that revision.`, 412);
    }
}

const noConflict = (id: string) => new ServiceError('not_found', `No conflict ${id}.`, 404);

/** A conversation's last message the actor sees (none of someone they blocked in a group): an item's place. */
async function lastMessageSeen(context: MessagingContext, actor: MessagingActor, conversationId: string, transaction: Transaction): Promise<string | null> {

    const conversation = await context.models.Conversation.findOne({ where: { id: conversationId, family_long_id: actor.familyLongId }, attributes: ['kind'], transaction });
    const blocked = conversation?.kind === 'group' ? [...await blockedBy(context.models, actor.userId, transaction)] : [];
    const last = await context.models.Message.findOne({
        where: { conversation_id: conversationId, family_long_id: actor.familyLongId, ...(blocked.length ? { sender_id: { [Op.notIn]: blocked } } : {}) },
        order: [['created_at', 'DESC'], ['id', 'DESC']],
        attributes: ['id'],
        transaction
    });
    return last?.id ?? null;
}

/**
 * Keeps a refused item as an open conflict in its place: after the last message of its conversation, none when the
 * conversation is not the actor's to see. Conflicts of a user are made in order (each later than the one before).
 */
export function openConflict(context: MessagingContext, actor: MessagingActor, grantId: string | null, item: OutboxItem, refusal: Refusal,
    afterOpen?: (transaction: Transaction, conflict: MessagingConflict) => Promise<void>): Promise<MessagingConflict> {

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const place = refusal.reason === 'conversation_access' ? null : await lastMessageSeen(context, actor, item.conversation_id, transaction);
        const latest = await context.models.MessagingConflict.max<Date | string | null, MessagingConflict>('created_at', { where: { user_id: actor.userId }, transaction });
        const createdAt = new Date(Math.max(Date.now(), latest ? new Date(latest).getTime() + 1 : 0));
        const conflict = await context.models.MessagingConflict.create({
            id: recordId('cfl'), family_long_id: actor.familyLongId, user_id: actor.userId, grant_id: grantId, conversation_id: item.conversation_id,
            reason: refusal.reason, message: refusal.message, item: { ...item }, after_message_id: place, status: 'open', revision: 1, created_at: createdAt
        }, { transaction });
        await log.record({ conversation_id: null, user_id: actor.userId, kind: 'conflict', action: 'created', record_id: conflict.id, revision: 1 });
        await afterOpen?.(transaction, conflict);
        return conflict;
    });
}

/** One of the actor's conflicts (404 for anyone else's). */
export async function getConflict(context: MessagingContext, actor: MessagingActor, conflictId: string, transaction?: Transaction): Promise<MessagingConflict> {

    const conflict = await context.models.MessagingConflict.findOne({ where: { id: conflictId, user_id: actor.userId, family_long_id: actor.familyLongId }, transaction });
    if (!conflict) {
        throw noConflict(conflictId);
    }

    return conflict;
}

export interface ConflictPage {
    conflicts: MessagingConflict[];
    /** Where the next page starts; null on the last page. */
    nextCursor: string | null;
}

/** The actor's conflicts in the order their items were refused, open ones unless `status` says otherwise. */
export async function listConflicts(context: MessagingContext, actor: MessagingActor,
    options: { status?: 'open' | 'resolved' | 'all'; cursor?: string; limit?: number }): Promise<ConflictPage> {

    const policy = context.policyStore.current().messaging.outbox;
    const limit = Math.min(options.limit ?? policy.conflicts_page_size, policy.conflicts_max_page_size);
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const status = options.status ?? 'open';
    const where: WhereOptions<MessagingConflict> = {
        user_id: actor.userId,
        family_long_id: actor.familyLongId,
        ...(status === 'all' ? {} : { status }),
        ...(after ? { [Op.or]: [{ created_at: { [Op.gt]: after.time } }, { created_at: after.time, id: { [Op.gt]: after.tiebreak } }] } : {})
    };
    const rows = await context.models.MessagingConflict.findAll({ where, order: [['created_at', 'ASC'], ['id', 'ASC']], limit: limit + 1 });
    const conflicts = rows.slice(0, limit);
    const last = conflicts[conflicts.length - 1];
    return { conflicts, nextCursor: rows.length > limit ? encodeCursor({ time: last.created_at, tiebreak: last.id }) : null };
}

/** Whether the client's If-Match names a conflict's revision; none sent: any revision. */
export type RevisionCheck = (revision: number) => boolean;

/** The actor's conflict, still open and at a revision they saw, in a write's transaction. */
async function openConflictOf(context: MessagingContext, actor: MessagingActor, conflictId: string, seen: RevisionCheck | undefined,
    transaction?: Transaction): Promise<MessagingConflict> {

    const conflict = await getConflict(context, actor, conflictId, transaction);
    if (seen && !seen(conflict.revision)) {
        throw new StaleConflictError(conflict);
    }

    if (conflict.status !== 'open') {
        throw new ServiceError('conflict', `Conflict ${conflictId} was resolved already (${conflict.resolution}).`, 409);
    }

    return conflict;
}

async function changed(conflict: MessagingConflict, changes: Partial<Pick<MessagingConflict, 'reason' | 'message' | 'item' | 'status' | 'resolution' | 'resolved_at'>>,
    transaction: Transaction, log: MessagingChangeLog): Promise<void> {

    await conflict.update({ ...changes, revision: conflict.revision + 1 }, { transaction });
    await log.record({ conversation_id: null, user_id: conflict.user_id, kind: 'conflict', action: 'updated', record_id: conflict.id, revision: conflict.revision });
}

/** What a retry or an edit came to: the message sent (the conflict resolved), or the conflict still open with the current reason. */
export type RetryOutcome = { outcome: 'sent'; message: Message; conflict: MessagingConflict } | { outcome: 'conflict'; conflict: MessagingConflict };

/**
 * Sends a conflict's item again through the same rechecks (with `body` instead of its text for an edit, which the
 * item keeps). Sent: the conflict is resolved (`retried`, `edited`) in the send's transaction, and the item's key
 * answers with the message from then on. Refused: the conflict stays open with the reason it meets now.
 */
export async function retryConflict(context: MessagingContext, actor: MessagingActor, conflictId: string,
    options: { seen?: RevisionCheck; body?: string } = {}): Promise<RetryOutcome> {

    const before = await openConflictOf(context, actor, conflictId, options.seen);
    const edited = options.body !== undefined;
    const item = (edited ? { ...before.item, body: options.body } : before.item) as unknown as OutboxItem;
    const resolution: ConflictResolution = edited ? 'edited' : 'retried';
    let resolved!: MessagingConflict;
    try {
        const message = await sendRechecked(context, actor, item, async (transaction, sent) => {

            const log = await openMessagingChangeLog(context.models, context.bus, actor.familyLongId, transaction);
            resolved = await openConflictOf(context, actor, conflictId, options.seen, transaction);
            await changed(resolved, { ...(edited ? { item: { ...item } } : {}), status: 'resolved', resolution, resolved_at: new Date() }, transaction, log);
            await rebindItemKey(context, resolved, sentAnswer(sent), transaction);
        });
        return { outcome: 'sent', message, conflict: resolved };
    }
    catch (error) {
        if (!(error instanceof RecheckRefusal)) {
            throw error;
        }

        return { outcome: 'conflict', conflict: await stillOpen(context, actor, conflictId, options.seen, error.refusal, edited ? item : undefined) };
    }
}

/** A conflict whose retry was refused: its reason as it is now, and an edit's text, recorded when either changed. */
function stillOpen(context: MessagingContext, actor: MessagingActor, conflictId: string, seen: RevisionCheck | undefined, refusal: Refusal,
    item?: OutboxItem): Promise<MessagingConflict> {

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const conflict = await openConflictOf(context, actor, conflictId, seen, transaction);
        const itemChanged = item !== undefined && item.body !== conflict.item.body;
        if (refusal.reason !== conflict.reason || refusal.message !== conflict.message || itemChanged) {
            await changed(conflict, { ...refusal, ...(itemChanged ? { item: { ...item } } : {}) }, transaction, log);
        }

        return conflict;
    });
}

/** The item's key, on the device that sent it, answers with what the item is now (its message once sent). */
async function rebindItemKey(context: MessagingContext, conflict: MessagingConflict, answer: IdempotentAnswer, transaction: Transaction): Promise<void> {

    if (conflict.grant_id) {
        await storeAnswer(context.models, { grantId: conflict.grant_id, route: itemKeyRoute, key: String(conflict.item.idempotency_key) }, answer, transaction);
    }
}

/** Gives a conflict's item up: resolved `discarded`, nothing sent. */
export function discardConflict(context: MessagingContext, actor: MessagingActor, conflictId: string, seen?: RevisionCheck): Promise<MessagingConflict> {

    return inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

        const conflict = await openConflictOf(context, actor, conflictId, seen, transaction);
        await changed(conflict, { status: 'resolved', resolution: 'discarded', resolved_at: new Date() }, transaction, log);
        return conflict;
    });
}

/** What an open conflict says once nothing would refuse its item any more: the reason it was refused for stays. */
const nothingStopsIt = 'Nothing stops this message now: retry to send it, or discard it.';

/**
 * Rechecks the actor's open conflicts, as a new stream or sync after a disconnect does: a conflict whose cause
 * changed (another reason now, or none) gets the current reason and words, and a change the client syncs.
 * Resolves to the conflicts changed.
 */
export async function recheckOpenConflicts(context: MessagingContext, actor: MessagingActor): Promise<MessagingConflict[]> {

    const open = await context.models.MessagingConflict.findAll({
        where: { user_id: actor.userId, family_long_id: actor.familyLongId, status: 'open' },
        order: [['created_at', 'ASC'], ['id', 'ASC']]
    });
    const updated: MessagingConflict[] = [];
    for (const before of open) {
        const now = await currentRefusal(context, actor, before.item as unknown as OutboxItem).catch((error) => (error instanceof ServiceError ? null : Promise.reject(error)));
        const refusal = now === null ? undefined : now ?? { reason: before.reason, message: nothingStopsIt };
        if (!refusal || (refusal.reason === before.reason && refusal.message === before.message)) {
            continue;               // unchanged, or refused for a reason no conflict names (a text over today's limit): left as it is
        }

        const conflict = await inMessagingWrite(context, actor.familyLongId, async (transaction, log) => {

            const current = await context.models.MessagingConflict.findOne({ where: { id: before.id, revision: before.revision, status: 'open' }, transaction });
            if (current) {
                await changed(current, refusal, transaction, log);
            }

            return current;
        });
        if (conflict) {
            updated.push(conflict);
        }
    }

    return updated;
}
