import { Op, type Transaction } from 'sequelize';

import type { RunInTransaction } from '../../lib/database';
import { openFamilyChangeLog, type ChangeBus, type FamilyChangeLog } from '../../lib/change-bus';
import { revisionEntity } from '../../lib/entity-tags';
import { apiError } from '../../lib/errors';
import { recordId } from '../../lib/ids';
import { assertPreconditions, type Preconditions } from '../../lib/preconditions';
import type { Redaction } from '../../lib/privacy/redaction';
import type { Models } from '../../models';
import type { ResourceRecord } from '../../models/resource-record';
import { resourceNames, resources, type ResourceDeclaration } from '../../models/resources';
import { assertConcernsNoLivingPerson, assertNamesNoLivingPerson } from './living-writes';
import { assertLifeDates, type LifeDates } from './person-dates';
import { assertPersonLinks, type PersonLinks } from './person-links';
import { recordNotFound } from './record-ids';

export interface WriteContext {
    models: Models;
    transaction: RunInTransaction;
    familyLongId: string;
    /** Where the change events go once their transaction commits (the stream, webhooks). */
    changeBus: ChangeBus;
    /** Set when the writer's key reads living persons redacted: it may not write what concerns them (living-writes.ts). */
    redaction?: Redaction;
}

/** A reference must name an existing record of the same family, never the record itself (nobody is their own parent). */
async function assertReferencesExist(context: WriteContext, resource: ResourceDeclaration, values: Record<string, unknown>,
    transaction: Transaction, ownId?: string): Promise<void> {

    for (const [name, field] of Object.entries(resource.fields)) {
        const target = values[name];
        if (field.type !== 'reference' || typeof target !== 'string') {
            continue;
        }

        if (field.references === resource.name && target === ownId) {
            throw apiError(400, 'invalid_request', `${name}: a ${resource.singular} cannot refer to itself.`);
        }

        const found = await context.models.records[field.references!].count({ where: { id: target, family_long_id: context.familyLongId }, transaction });
        if (found === 0) {
            throw apiError(400, 'invalid_request', `${name}: there is no ${resources[field.references!].singular} ${target} in this family.`);
        }
    }
}

/**
 * What a record's values must hold together, and with other records: every reference must exist; a
 * person's links must also make a family (person-links.ts), and their death not come before their birth.
 */
async function assertConsistent(context: WriteContext, resource: ResourceDeclaration, values: Record<string, unknown>,
    changes: Record<string, unknown>, transaction: Transaction, ownId?: string): Promise<void> {

    await assertReferencesExist(context, resource, changes, transaction, ownId);
    if (resource.name === 'persons') {
        assertLifeDates(values as LifeDates, changes as LifeDates);
        await assertPersonLinks(context.models, context.familyLongId, values as PersonLinks, changes as PersonLinks, transaction, ownId);
    }
}

/**
 * The family's record, locked for the rest of the transaction, once the request's preconditions hold
 * of it (If-Match, If-Unmodified-Since): checked on the locked row, so that of two writes sent with the
 * same If-Match the second sees the first one's revision and changes nothing.
 */
async function findOwnRecord(context: WriteContext, resource: ResourceDeclaration, id: string, transaction: Transaction, preconditions: Preconditions): Promise<ResourceRecord> {

    const record = await context.models.records[resource.name].findOne({
        where: { id, family_long_id: context.familyLongId },
        transaction,
        lock: transaction.LOCK.UPDATE
    });
    if (!record) {
        throw recordNotFound(resource, id);
    }

    const advice = `the ${resource.singular} ${id} is at revision ${record.revision} now. Read it again and reapply your change.`;
    assertPreconditions(preconditions, { etag: revisionEntity(record.revision).etag, lastModified: record.updated_at }, advice);
    return record;
}

/** The revision of a record as created: every create answers with it (a retry's replay too). */
export const firstRevision = 1;

/** What a caller adds to a create: the files plugin's uploads, an `Idempotency-Key`. */
export interface CreateOptions {
    /** Values the server sets itself (read-only fields, internal columns); never from a request body. */
    serverValues?: Record<string, unknown>;
    /** Runs first inside the write transaction; throwing refuses the create (a storage quota, say). */
    beforeCreate?(transaction: Transaction): Promise<void>;
    /** Runs last inside the write transaction, with the record made (storing the answer to an `Idempotency-Key`). */
    afterCreate?(transaction: Transaction, record: ResourceRecord): Promise<void>;
}

export function createRecord(context: WriteContext, resource: ResourceDeclaration, values: Record<string, unknown>, options: CreateOptions = {}): Promise<ResourceRecord> {

    return context.transaction(async (transaction) => {

        const changeLog = await openFamilyChangeLog(context, transaction);
        if (context.redaction) {
            await assertNamesNoLivingPerson(context.models.Family.sequelize!, resource, context.familyLongId, values, context.redaction, transaction);
        }

        await options.beforeCreate?.(transaction);
        await assertConsistent(context, resource, values, values, transaction);
        const record = await context.models.records[resource.name].create({
            ...values,
            ...options.serverValues,
            id: recordId(resource.idPrefix),
            family_long_id: context.familyLongId,
            revision: firstRevision
        }, { transaction });

        await changeLog.record({ resource: resource.name, action: 'created', record_id: record.id, revision: firstRevision });
        await options.afterCreate?.(transaction, record);
        return record;
    });
}

/** Changes the record with its change event, when `preconditions` hold of it (a 412 changes nothing). */
export function updateRecord(context: WriteContext, resource: ResourceDeclaration, id: string, changes: Record<string, unknown>,
    preconditions: Preconditions = {}): Promise<ResourceRecord> {

    return context.transaction(async (transaction) => {

        const changeLog = await openFamilyChangeLog(context, transaction);
        const record = await findOwnRecord(context, resource, id, transaction, preconditions);
        if (context.redaction) {
            // Before the checks of the changes: their errors quote the values stored.
            await assertConcernsNoLivingPerson(resource, record, context.redaction, transaction);
            await assertNamesNoLivingPerson(record.sequelize, resource, context.familyLongId, changes, context.redaction, transaction);
        }

        await assertConsistent(context, resource, { ...record.get({ plain: true }), ...changes }, changes, transaction, id);
        record.set({ ...changes, revision: record.revision + 1 });
        await record.save({ transaction });
        await changeLog.record({ resource: resource.name, action: 'updated', record_id: record.id, revision: record.revision });
        return record;
    });
}

/**
 * Records that point at a deleted record lose the reference, each as one update of its own
 * (one revision, one event), however many of its fields named the deleted record.
 */
async function clearReferencesTo(context: WriteContext, deleted: ResourceDeclaration, id: string, transaction: Transaction, changeLog: FamilyChangeLog): Promise<void> {

    for (const name of resourceNames) {
        const fields = Object.entries(resources[name].fields).filter(([, declaration]) => declaration.type === 'reference' && declaration.references === deleted.name).map(([field]) => field);
        if (fields.length === 0) {
            continue;
        }

        const where = { family_long_id: context.familyLongId, [Op.or]: fields.map((field) => ({ [field]: id })) };
        const referring = await context.models.records[name].findAll({ where, transaction });
        for (const record of referring) {
            const cleared = Object.fromEntries(fields.filter((field) => record.get(field) === id).map((field) => [field, null]));
            record.set({ ...cleared, revision: record.revision + 1 });
            await record.save({ transaction });
            await changeLog.record({ resource: name, action: 'updated', record_id: record.id, revision: record.revision });
        }
    }
}

/** Deletes the record with its change event, when `preconditions` hold of it; resolves with the deleted record once committed. */
export function deleteRecord(context: WriteContext, resource: ResourceDeclaration, id: string, preconditions: Preconditions = {}): Promise<ResourceRecord> {

    return context.transaction(async (transaction) => {

        const changeLog = await openFamilyChangeLog(context, transaction);
        const record = await findOwnRecord(context, resource, id, transaction, preconditions);
        if (context.redaction) {
            await assertConcernsNoLivingPerson(resource, record, context.redaction, transaction);
        }

        await clearReferencesTo(context, resource, id, transaction, changeLog);
        await record.destroy({ transaction });
        await changeLog.record({ resource: resource.name, action: 'deleted', record_id: id, revision: record.revision + 1 });
        return record;
    });
}
