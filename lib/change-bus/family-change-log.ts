import type { Transaction } from 'sequelize';

import type { Models } from '../../models';
import { recordChange, type Change } from '../change-events';
import { changeEventData, type ChangeBus, type ChangeEventData } from './bus';

/** What a family's write records; the family comes from the log. */
export type FamilyChange = Omit<Change, 'family_long_id'>;

export interface FamilyChangeLog {
    record(change: FamilyChange): Promise<void>;
}

export interface FamilyChangeLogContext {
    models: Models;
    changeBus: ChangeBus;
    familyLongId: string;
}

/**
 * Takes the family's write turn (the family row, locked until the transaction ends); call it
 * first in a transaction that writes to a change log. On PostgreSQL two transactions could
 * otherwise commit in the other order than they drew their event ids, and a stream that had
 * sent the later id would never send the earlier one, nor would a client resuming after it.
 * Taken first, before any record is locked, it cannot deadlock with another write. SQLite has
 * one writer at a time already (a write transaction begins IMMEDIATE), and no row locks: there
 * it reads nothing.
 */
export async function takeFamilyWriteTurn(models: Models, familyLongId: string, transaction: Transaction): Promise<void> {

    if (models.Family.sequelize!.getDialect() === 'postgres') {
        await models.Family.findOne({ where: { family_long_id: familyLongId }, attributes: ['family_long_id'], transaction, lock: transaction.LOCK.NO_KEY_UPDATE });
    }
}

/**
 * Opens the change log of one family's write transaction; call it first in the transaction (it
 * takes the family's write turn). Once the transaction commits, the events it recorded are
 * published on the change bus as one batch.
 */
export async function openFamilyChangeLog(context: FamilyChangeLogContext, transaction: Transaction): Promise<FamilyChangeLog> {

    const { models, changeBus, familyLongId } = context;
    await takeFamilyWriteTurn(models, familyLongId, transaction);

    const events: ChangeEventData[] = [];
    let previousId: number | undefined;

    return {
        async record(change) {

            if (previousId === undefined) {
                previousId = Number(await models.ChangeEvent.max('id', { where: { family_long_id: familyLongId }, transaction }) ?? 0);
                transaction.afterCommit(() => changeBus.publish({ family_long_id: familyLongId, previous_id: previousId!, events }));
            }

            events.push(changeEventData(await recordChange(models, transaction, { ...change, family_long_id: familyLongId })));
        }
    };
}
