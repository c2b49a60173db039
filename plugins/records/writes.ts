import { Op, type Transaction } from 'sequelize';

import { openFamilyChangeLog, type ChangeBus, type FamilyChangeLog } from '../../lib/change-bus';
import { apiError } from '../../lib/errors';
import { recordId } from '../../lib/ids';
import type { Models } from '../../models';
import type { ResourceRecord } from '../../models/resource-record';
import { resourceNames, resources, type ResourceDeclaration } from '../../models/resources';
import { assertPersonLinks, type PersonLinks } from './person-links';
import { recordNotFound } from './record-ids';

export type RunInTransaction = <T>(work: (transaction: Transaction) => Promise<T>) => Promise<T>;

export interface WriteContext {
    models: Models;
    transaction: RunInTransaction;
    familyLongId: string;
    /** Where the change events go once their transaction commits (the stream, webhooks). */
    changeBus: ChangeBus;
}

/** A reference must name an existing record of the same family, never the record itself (nobody is their own parent). */
async function assertReferencesExist(context: WriteContext, resource: ResourceDeclaration, values: Record<string, unknown>, transaction: Transaction, ownId?: string): Promise<void> {

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

/** Every reference must exist; a person's links must also make a family (person-links.ts). */
async function assertValidReferences(context: WriteContext, resource: ResourceDeclaration, values: Record<string, unknown>, changes: Record<string, unknown>, transaction: Transaction, ownId?: string): Promise<void> {

    await assertReferencesExist(context, resource, changes, transaction, ownId);
    if (resource.name === 'persons') {
        await assertPersonLinks(context.models, context.familyLongId, values as PersonLinks, changes as PersonLinks, transaction, ownId);
    }
}

function findOwnRecord(context: WriteContext, resource: ResourceDeclaration, id: string, transaction: Transaction): Promise<ResourceRecord | null> {

    return context.models.records[resource.name].findOne({
        where: { id, family_long_id: context.familyLongId },
        transaction,
        lock: transaction.LOCK.UPDATE
    });
}

/** What a caller other than the JSON create route adds to a create (the files plugin's uploads). */
export interface CreateOptions {
    /** Values the server sets itself (read-only fields, internal columns); never from a request body. */
    serverValues?: Record<string, unknown>;
    /** Runs first inside the write transaction; throwing refuses the create (a storage quota, say). */
    beforeCreate?(transaction: Transaction): Promise<void>;
}

export function createRecord(context: WriteContext, resource: ResourceDeclaration, values: Record<string, unknown>, options: CreateOptions = {}): Promise<ResourceRecord> {

    return context.transaction(async (transaction) => {

        const changeLog = await openFamilyChangeLog(context, transaction);
        await options.beforeCreate?.(transaction);
        await assertValidReferences(context, resource, values, values, transaction);
        const record = await context.models.records[resource.name].create({
            ...values,
            ...options.serverValues,
            id: recordId(resource.idPrefix),
            family_long_id: context.familyLongId,
            revision: 1
        }, { transaction });

        await changeLog.record({ resource: resource.name, action: 'created', record_id: record.id, revision: 1 });
        return record;
    });
}

export function updateRecord(context: WriteContext, resource: ResourceDeclaration, id: string, changes: Record<string, unknown>): Promise<ResourceRecord> {

    return context.transaction(async (transaction) => {

        const changeLog = await openFamilyChangeLog(context, transaction);
        const record = await findOwnRecord(context, resource, id, transaction);
        if (!record) {
            throw recordNotFound(resource, id);
        }

        await assertValidReferences(context, resource, { ...record.get({ plain: true }), ...changes }, changes, transaction, id);
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

        const referring = await context.models.records[name].findAll({ where: { family_long_id: context.familyLongId, [Op.or]: fields.map((field) => ({ [field]: id })) }, transaction });
        for (const record of referring) {
            const cleared = Object.fromEntries(fields.filter((field) => record.get(field) === id).map((field) => [field, null]));
            record.set({ ...cleared, revision: record.revision + 1 });
            await record.save({ transaction });
            await changeLog.record({ resource: name, action: 'updated', record_id: record.id, revision: record.revision });
        }
    }
}

/** Deletes the record with its change event; resolves with the deleted record once committed. */
export function deleteRecord(context: WriteContext, resource: ResourceDeclaration, id: string): Promise<ResourceRecord> {

    return context.transaction(async (transaction) => {

        const changeLog = await openFamilyChangeLog(context, transaction);
        const record = await findOwnRecord(context, resource, id, transaction);
        if (!record) {
            throw recordNotFound(resource, id);
        }

        await clearReferencesTo(context, resource, id, transaction, changeLog);
        await record.destroy({ transaction });
        await changeLog.record({ resource: resource.name, action: 'deleted', record_id: id, revision: record.revision + 1 });
        return record;
    });
}
