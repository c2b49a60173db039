import type { Transaction } from 'sequelize';

import type { Message } from '../../models/message';
import type { ConflictReason } from '../../models/messaging-conflict';
import { messagingRefusal } from '../accounts/messaging-access';
import { ServiceError } from '../errors';
import type { MessagingActor, MessagingContext } from './context';
import { sendMessage } from './messages';

/*
 * The rechecks of an offline outbox item, run when it is sent (a flush, a conflict's retry or edit) and
 * when the user reconnects (recheckOpenConflicts): account state, conversation access, social blocks, then
 * the storage quota and attachment policy of the files it names. Conversation access and blocks are
 * sendMessage()'s own checks, read here as conflict reasons, so an item passes exactly what a send passes.
 */

/** Why an item is refused: the conflict's reason code, and words for people. */
export interface Refusal {
    reason: ConflictReason;
    message: string;
}

/** A recheck refused the item: it becomes (or stays) a conflict instead of a message. */
export class RecheckRefusal extends ServiceError {
    constructor(readonly reason: ConflictReason, message: string) {

        super('conflict', message, 409);
    }

    get refusal(): Refusal {

        return { reason: this.reason, message: this.message };
    }
}

/**
 * Why the actor may not use messaging now, if they may not: their account disabled, their family's messaging
 * suspended (messagingRefusal(), as the site asks), or its access suspended (the gateway's own rule for devices).
 * The gateway admits the outbox whatever the account state (its route declares `accountStateInHandler`), so this
 * checks all that the account-state policy does; each is the reason `account_disabled`.
 */
export async function accountRefusal(context: MessagingContext, actor: MessagingActor): Promise<Refusal | undefined> {

    const [user, family] = await Promise.all([
        context.models.User.findOne({ where: { id: actor.userId, family_long_id: actor.familyLongId }, attributes: ['disabled_at'] }),
        context.models.Family.findOne({ where: { family_long_id: actor.familyLongId }, attributes: ['api_suspended_at', 'messaging_suspended_at', 'messaging_suspension_reason'] })
    ]);
    if (!user || !family) {
        return { reason: 'account_disabled', message: 'This account is gone: it cannot send messages.' };
    }

    const refusal = messagingRefusal(user, family);
    if (refusal) {
        return { reason: 'account_disabled', message: refusal.message };
    }

    if (family.api_suspended_at) {
        return { reason: 'account_disabled', message: 'This family\'s access is suspended: its messages wait until a super-admin lifts the suspension.' };
    }

    return undefined;
}

/** What an uploads refusal means for the item; a refusal that names no reason of the outbox is the attachment policy's. */
function uploadRefusal(error: unknown): unknown {

    if (error instanceof RecheckRefusal || !(error instanceof ServiceError)) {
        return error;
    }

    return new RecheckRefusal(error.code === 'quota_exceeded' ? 'storage_quota' : 'attachment_policy', error.message);
}

/** sendMessage()'s refusals that are rechecks: the conversation gone or no longer the actor's (404), a block (403). */
function sendRefusal(error: unknown): unknown {

    if (error instanceof ServiceError && error.code === 'not_found') {
        return new RecheckRefusal('conversation_access', 'This conversation is gone, or you are no longer in it: the message cannot be sent there.');
    }

    if (error instanceof ServiceError && error.code === 'blocked') {
        return new RecheckRefusal('blocked', error.message);
    }

    return error;
}

/** The message an outbox item asks for. */
export interface ItemMessage {
    conversation_id: string;
    body?: string;
    upload_ids?: string[];
    client_time: string;
}

/**
 * Sends an item's message after its rechecks; a refused one rejects with RecheckRefusal. `afterSend` runs in the
 * send's transaction. Other refusals (a body too long) reject as they are.
 */
export async function sendRechecked(context: MessagingContext, actor: MessagingActor, item: ItemMessage,
    afterSend?: (transaction: Transaction, message: Message) => Promise<void>): Promise<Message> {

    const account = await accountRefusal(context, actor);
    if (account) {
        throw new RecheckRefusal(account.reason, account.message);
    }

    const uploadIds = item.upload_ids ?? [];
    const attach = uploadIds.length ?
        (transaction: Transaction, messageId: string) => context.uploads.claim(actor, messageId, uploadIds, transaction).catch((error) => Promise.reject(uploadRefusal(error))) :
        undefined;
    try {
        return await sendMessage(context, actor, item.conversation_id, { body: item.body, attach, clientTime: new Date(item.client_time), afterSend });
    }
    catch (error) {
        throw sendRefusal(error);
    }
}

/** Thrown to roll a send back once its checks have passed. */
class DryRun extends Error {}

/**
 * Why the item would be refused now, if it would: the same rechecks as sending it, in a transaction rolled back
 * once they pass (nothing is sent, no file claimed, no change published).
 */
export async function currentRefusal(context: MessagingContext, actor: MessagingActor, item: ItemMessage): Promise<Refusal | undefined> {

    try {
        await sendRechecked(context, actor, item, () => Promise.reject(new DryRun()));
    }
    catch (error) {
        if (error instanceof RecheckRefusal) {
            return error.refusal;
        }

        if (!(error instanceof DryRun)) {
            throw error;
        }
    }

    return undefined;
}
