import type { Transaction } from 'sequelize';

import { recordChange } from '../../lib/change-events';
import { apiError } from '../../lib/errors';
import { recordId } from '../../lib/ids';
import type { Models } from '../../models';
import type { ResourceRecord } from '../../models/resource-record';
import { resourceNames, resources, type ResourceDeclaration, type ResourceName } from '../../models/resources';

export type RunInTransaction = <T>(work: (transaction: Transaction) => Promise<T>) => Promise<T>;

export interface WriteContext {
    models: Models;
    transaction: RunInTransaction;
    familyLongId: string;
}

/** A reference must name an existing record of the same family. */
async function assertReferencesExist(context: WriteContext, resource: ResourceDeclaration, values: Record<string, unknown>, transaction: Transaction): Promise<void> {

    for (const [name, field] of Object.entries(resource.fields)) {
        const target = values[name];
        if (field.type !== 'reference' || typeof target !== 'string') {
            continue;
        }

        const found = await context.models.records[field.references!].count({ where: { id: target, family_long_id: context.familyLongId }, transaction });
        if (found === 0) {
            throw apiError(400, 'invalid_request', `${name}: there is no ${resources[field.references!].singular} ${target} in this family.`);
        }
    }
}

function findOwnRecord(context: WriteContext, resource: ResourceDeclaration, id: string, transaction: Transaction): Promise<ResourceRecord | null> {

    return context.models.records[resource.name].findOne({
        where: { id, family_long_id: context.familyLongId },
        transaction,
        lock: transaction.LOCK.UPDATE
    });
}

const notFound = (resource: ResourceDeclaration, id: string) => apiError(404, 'not_found', `No ${resource.singular} ${id}.`);

export function createRecord(context: WriteContext, resource: ResourceDeclaration, values: Record<string, unknown>): Promise<ResourceRecord> {

    return context.transaction(async (transaction) => {

        await assertReferencesExist(context, resource, values, transaction);
        const record = await context.models.records[resource.name].create({
            ...values,
            id: recordId(resource.idPrefix),
            family_long_id: context.familyLongId,
            revision: 1
        }, { transaction });

        await recordChange(context.models, transaction, { family_long_id: context.familyLongId, resource: resource.name, action: 'created', record_id: record.id, revision: 1 });
        return record;
    });
}

export function updateRecord(context: WriteContext, resource: ResourceDeclaration, id: string, changes: Record<string, unknown>): Promise<ResourceRecord> {

    return context.transaction(async (transaction) => {

        const record = await findOwnRecord(context, resource, id, transaction);
        if (!record) {
            throw notFound(resource, id);
        }

        await assertReferencesExist(context, resource, changes, transaction);
        record.set({ ...changes, revision: record.revision + 1 });
        await record.save({ transaction });
        await recordChange(context.models, transaction, { family_long_id: context.familyLongId, resource: resource.name, action: 'updated', record_id: record.id, revision: record.revision });
        return record;
    });
}

/** Records of other resources that point at a deleted record lose the reference, as an update of their own. */
async function clearReferencesTo(context: WriteContext, deleted: ResourceDeclaration, id: string, transaction: Transaction): Promise<void> {

    for (const name of resourceNames) {
        for (const [field, declaration] of Object.entries(resources[name].fields)) {
            if (declaration.type !== 'reference' || declaration.references !== deleted.name) {
                continue;
            }

            const referring = await context.models.records[name as ResourceName].findAll({ where: { family_long_id: context.familyLongId, [field]: id }, transaction });
            for (const record of referring) {
                record.set({ [field]: null, revision: record.revision + 1 });
                await record.save({ transaction });
                await recordChange(context.models, transaction, { family_long_id: context.familyLongId, resource: name, action: 'updated', record_id: record.id, revision: record.revision });
            }
        }
    }
}

export function deleteRecord(context: WriteContext, resource: ResourceDeclaration, id: string): Promise<void> {

    return context.transaction(async (transaction) => {

        const record = await findOwnRecord(context, resource, id, transaction);
        if (!record) {
            throw notFound(resource, id);
        }

        await clearReferencesTo(context, resource, id, transaction);
        await record.destroy({ transaction });
        await recordChange(context.models, transaction, { family_long_id: context.familyLongId, resource: resource.name, action: 'deleted', record_id: id, revision: record.revision + 1 });
    });
}
