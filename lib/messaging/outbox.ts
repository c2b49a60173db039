import { apiError, ServiceError } from '../errors';
import { requestFingerprint } from '../idempotency-key-header';
import type { MessagingActor, MessagingContext } from './context';
import { conflictAnswer, itemKeyRoute, openConflict, sentAnswer, type OutboxItem } from './conflicts';
import { answerOnce, type IdempotencyScope, type IdempotentAnswer } from './idempotency';
import { checkedBody } from './messages';
import { RecheckRefusal, sendRechecked } from './rechecks';
import { conflictJson, messageJson } from './serialize';

/** What became of one outbox item: its message sent now, the message it made before, or the conflict it is. */
export type ItemOutcome =
    | { outcome: 'sent'; idempotency_key: string; message: object }
    | { outcome: 'duplicate'; idempotency_key: string; message: object }
    | { outcome: 'conflict'; idempotency_key: string; conflict: object };

/** Who flushes: the device (whose keys the items' are) and where the send route lies (its path is in the key's fingerprint). */
export interface Flusher {
    grantId: string;
    /** The messaging API's prefix, `/messaging/v1`. */
    prefix: string;
}

/** The send route's key of an item: the same message sent online with the same key is the same request. */
function itemScope(flusher: Flusher, item: OutboxItem): IdempotencyScope {

    const path = `${flusher.prefix}/conversations/${item.conversation_id}/messages`;
    return { grantId: flusher.grantId, route: itemKeyRoute, key: item.idempotency_key, fingerprint: requestFingerprint(path, { body: item.body, upload_ids: item.upload_ids }) };
}

/**
 * Refuses a flush that cannot be applied whole, before anything is: too many items, a key twice, a text over the
 * limit or a message with neither text nor files, a key used before for another message.
 */
async function assertApplicable(context: MessagingContext, flusher: Flusher, items: readonly OutboxItem[]): Promise<void> {

    const max = context.policyStore.current().messaging.outbox.max_items;
    if (items.length > max) {
        throw new ServiceError('invalid_request', `items: a flush holds at most ${max} items: send the rest in another, in order.`);
    }

    const keys = new Map<string, number>();
    items.forEach((item, index) => {

        if (keys.has(item.idempotency_key)) {
            throw new ServiceError('invalid_request', `items[${index}].idempotency_key: items[${keys.get(item.idempotency_key)}] has it already: each item has a key of its own.`);
        }

        keys.set(item.idempotency_key, index);
        try {
            checkedBody(context, item.body, (item.upload_ids?.length ?? 0) > 0);
        }
        catch (error) {
            throw error instanceof ServiceError ? new ServiceError(error.code, `items[${index}].${error.message}`) : error;
        }
    });

    const earlier = await context.models.MessagingIdempotencyKey.findAll({ where: { grant_id: flusher.grantId, route: itemKeyRoute, idempotency_key: [...keys.keys()] } });
    for (const entry of earlier) {
        const index = keys.get(entry.idempotency_key)!;
        if (entry.fingerprint !== itemScope(flusher, items[index]).fingerprint) {
            throw apiError(422, 'idempotency_key_reused', `items[${index}].idempotency_key: this key was used in the last 24 hours for another message: a new message needs a new key.`);
        }
    }
}

/** A replayed answer as an outcome: the message or conflict as it is now. */
async function replayed(context: MessagingContext, actor: MessagingActor, key: string, answer: IdempotentAnswer): Promise<ItemOutcome> {

    const body = answer.body as { data?: { id?: string }; conflict?: { id: string } };
    if (answer.status === 409 && body.conflict) {
        const conflict = await context.models.MessagingConflict.findOne({ where: { id: body.conflict.id, user_id: actor.userId } });
        return { outcome: 'conflict', idempotency_key: key, conflict: conflict ? conflictJson(conflict) : body.conflict };
    }

    const id = body.data?.id;
    const message = id ? await context.models.Message.findOne({ where: { id, family_long_id: actor.familyLongId } }) : null;
    return { outcome: 'duplicate', idempotency_key: key, message: message ? messageJson(message) : body.data ?? body };
}

/** Sends one item once per key: its message, or, refused by a recheck, a conflict in its place that its key answers with. */
async function applyItem(context: MessagingContext, actor: MessagingActor, flusher: Flusher, item: OutboxItem): Promise<ItemOutcome> {

    const key = item.idempotency_key;
    let outcome: ItemOutcome | undefined;
    const { answer, replayed: again } = await answerOnce(context.models, itemScope(flusher, item), async (recordAnswer) => {

        try {
            const message = await sendRechecked(context, actor, item, (transaction, sent) => recordAnswer(transaction, sentAnswer(sent)));
            outcome = { outcome: 'sent', idempotency_key: key, message: messageJson(message) };
            return sentAnswer(message);
        }
        catch (error) {
            if (!(error instanceof RecheckRefusal)) {
                throw error;
            }

            const conflict = await openConflict(context, actor, flusher.grantId, item, error.refusal, (transaction, made) => recordAnswer(transaction, conflictAnswer(made)));
            outcome = { outcome: 'conflict', idempotency_key: key, conflict: conflictJson(conflict) };
            return conflictAnswer(conflict);
        }
    });

    return again ? replayed(context, actor, key, answer) : outcome!;
}

/**
 * Applies a client's offline outbox, item after item in its order (so those of one conversation keep theirs):
 * each is rechecked and sent, or kept as a conflict that does not stop the items after it. An item sent before
 * (from this outbox, or online with its key) is not sent again. A flush that cannot be applied whole is refused
 * before any item is; one that fails part-way (the database gone) is answered with that error, and the same
 * flush sent again carries on where it stopped.
 */
export async function flushOutbox(context: MessagingContext, actor: MessagingActor, flusher: Flusher, items: readonly OutboxItem[]): Promise<ItemOutcome[]> {

    await assertApplicable(context, flusher, items);
    const outcomes: ItemOutcome[] = [];
    for (const item of items) {
        outcomes.push(await applyItem(context, actor, flusher, item));
    }

    return outcomes;
}
