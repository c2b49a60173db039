import type { Transaction } from 'sequelize';

import type { Models } from '../../models';
import type { ChangeAction } from '../../models/change-event';
import type { MessagingChange, MessagingChangeKind } from '../../models/messaging-change';
import { openChangeLog, type ChangeBatch, type ChangeBus } from '../change-bus';

/** A messaging change as the bus carries it: which record changed, and who sees it. */
export interface MessagingChangeData {
    id: number;
    conversation_id: string | null;
    user_id: string | null;
    kind: MessagingChangeKind;
    action: ChangeAction;
    record_id: string;
    revision: number;
    /** UTC ISO-8601. */
    occurred_at: string;
}

export type MessagingBatch = ChangeBatch<MessagingChangeData>;

/** The messaging change log's bus: its own channel beside the family API's. */
export type MessagingBus = ChangeBus<MessagingBatch>;

export function messagingChangeData(change: MessagingChange): MessagingChangeData {

    return {
        id: change.id,
        conversation_id: change.conversation_id,
        user_id: change.user_id,
        kind: change.kind,
        action: change.action,
        record_id: change.record_id,
        revision: change.revision,
        occurred_at: change.occurred_at.toISOString()
    };
}

/** What a messaging write records: a conversation's members see it, or only `user_id` when set (with no conversation). */
export interface MessagingChangeInput {
    conversation_id: string | null;
    user_id?: string | null;
    kind: MessagingChangeKind;
    action: ChangeAction;
    record_id: string;
    revision: number;
}

export interface MessagingChangeLog {
    record(change: MessagingChangeInput): Promise<void>;
}

/**
 * Opens the messaging change log (messaging_changes) of one family's write transaction: call it first in the
 * transaction. As the family API's log, openChangeLog() takes the family's write turn, so changes commit in the
 * order of their ids, and publishes what the transaction recorded as one batch once it commits.
 */
export function openMessagingChangeLog(models: Models, bus: MessagingBus, familyLongId: string, transaction: Transaction): Promise<MessagingChangeLog> {

    return openChangeLog<MessagingChangeInput, MessagingChangeData>(models, bus, familyLongId, transaction, {
        latestId: async (inTransaction) => Number(await models.MessagingChange.max('id', { where: { family_long_id: familyLongId }, transaction: inTransaction }) ?? 0),
        write: async (change, inTransaction) => messagingChangeData(await models.MessagingChange.create(
            { user_id: null, ...change, family_long_id: familyLongId, occurred_at: new Date() },
            { transaction: inTransaction }
        ))
    });
}
