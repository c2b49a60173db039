import type { Transaction } from 'sequelize';

import type { Models } from '../../models';
import { recordChange, type Change } from '../change-events';
import { changeEventData, type ChangeBatch, type ChangeBus, type ChangeEventData } from './bus';

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

/** What a change log of the family's writes is made of: its table's latest id of the family, and how a change is written there. */
export interface ChangeLogTable<Entry, Event> {
    /** The family's latest id in the table, 0 when it has none. */
    latestId(transaction: Transaction): Promise<number>;
    write(change: Entry, transaction: Transaction): Promise<Event>;
}

/**
 * Opens a change log (the family API's, messaging's) of one family's write transaction; call it first in the
 * transaction (it takes the family's write turn). Once the transaction commits, the events it recorded are
 * published on `bus` as one batch, with the family's latest id before them.
 */
export async function openChangeLog<Entry, Event>(models: Models, bus: ChangeBus<ChangeBatch<Event>>, familyLongId: string, transaction: Transaction,
    table: ChangeLogTable<Entry, Event>): Promise<{ record(change: Entry): Promise<void> }> {

    await takeFamilyWriteTurn(models, familyLongId, transaction);
    const events: Event[] = [];
    let previousId: number | undefined;

    return {
        async record(change) {

            if (previousId === undefined) {
                previousId = await table.latestId(transaction);
                transaction.afterCommit(() => bus.publish({ family_long_id: familyLongId, previous_id: previousId!, events }));
            }

            events.push(await table.write(change, transaction));
        }
    };
}

/** Opens the family API's change log (change_events) of one family's write transaction: openChangeLog(). */
export function openFamilyChangeLog(context: FamilyChangeLogContext, transaction: Transaction): Promise<FamilyChangeLog> {

    const { models, changeBus, familyLongId } = context;
    return openChangeLog<FamilyChange, ChangeEventData>(models, changeBus, familyLongId, transaction, {
        latestId: async (inTransaction) => Number(await models.ChangeEvent.max('id', { where: { family_long_id: familyLongId }, transaction: inTransaction }) ?? 0),
        write: async (change, inTransaction) => changeEventData(await recordChange(models, inTransaction, { ...change, family_long_id: familyLongId }))
    });
}
