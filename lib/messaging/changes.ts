import type { Transaction } from 'sequelize';

import type { Models } from '../../models';
import type { ChangeAction } from '../../models/change-event';
import type { MessagingChange, MessagingChangeKind } from '../../models/messaging-change';
import { takeFamilyWriteTurn, type ChangeBatch, type ChangeBus } from '../change-bus';

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
 * Opens the messaging change log of one family's write transaction: call it first in the
 * transaction. As the family API's log (lib/change-bus/family-change-log.ts) it takes the
 * family's write turn, so changes commit in the order of their ids, and publishes what the
 * transaction recorded as one batch once it commits.
 */
export async function openMessagingChangeLog(models: Models, bus: MessagingBus, familyLongId: string, transaction: Transaction): Promise<MessagingChangeLog> {

    await takeFamilyWriteTurn(models, familyLongId, transaction);
    const events: MessagingChangeData[] = [];
    let previousId: number | undefined;

    return {
        async record(change) {

            if (previousId === undefined) {
                previousId = Number(await models.MessagingChange.max('id', { where: { family_long_id: familyLongId }, transaction }) ?? 0);
                transaction.afterCommit(() => bus.publish({ family_long_id: familyLongId, previous_id: previousId!, events }));
            }

            const row = await models.MessagingChange.create({ user_id: null, ...change, family_long_id: familyLongId, occurred_at: new Date() }, { transaction });
            events.push(messagingChangeData(row));
        }
    };
}
