import type { Transaction } from 'sequelize';

import type { PlanPolicy } from '../gateway/policies/plans';
import type { Models } from '../models';
import { fileResourceNames } from '../models/resources';
import { apiError } from './errors';

/** `10485760 bytes (10 MiB)`: exact, since limits are exact, and readable. */
export function bytes(count: number): string {

    const units = [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const;
    const unit = units.find(([, size]) => count >= size);
    return unit ? `${count} bytes (${Number((count / unit[1]).toFixed(1))} ${unit[0]})` : `${count} bytes`;
}

/**
 * What the family's files add up to: gallery items and documents, and message attachments
 * (resumable uploads, finished or not, by the length they declared when created).
 */
export async function storageUsed(models: Models, familyLongId: string, transaction?: Transaction): Promise<number> {

    let used = 0;
    for (const name of fileResourceNames) {
        // PostgreSQL returns a SUM of BIGINT as text; no rows sum to null.
        used += Number(await models.records[name].sum('size_bytes', { where: { family_long_id: familyLongId }, transaction }) ?? 0);
    }

    used += Number(await models.MessagingUpload.sum('length_bytes', { where: { family_long_id: familyLongId }, transaction }) ?? 0);
    return used;
}

/** Why adding `size` bytes would take the family over its plan's storage quota, in words; undefined when they fit. */
export function quotaRefusal(plan: PlanPolicy, used: number, size: number): string | undefined {

    const quota = plan.storage_quota_bytes ?? 0;
    if (used + size <= quota) {
        return undefined;
    }

    return `This file (${bytes(size)}) does not fit in the ${plan.label} plan's storage of ${bytes(quota)}: ${bytes(Math.max(0, quota - used))} is left. `
        + 'Deleting gallery items, documents or messages with attachments frees space.';
}

/** 413 quota_exceeded when adding `size` bytes would take the family over its plan's storage quota. */
export function assertWithinQuota(plan: PlanPolicy, used: number, size: number): void {

    const refusal = quotaRefusal(plan, used, size);
    if (refusal) {
        throw apiError(413, 'quota_exceeded', refusal);
    }
}

/**
 * Makes the family's uploads (gallery, documents, message attachments) take turns until this
 * transaction ends, so two of them cannot both fit in the last free bytes. PostgreSQL: the
 * family row, locked FOR UPDATE; SQLite has one writer at a time already (the lock clause is left out there).
 */
export async function lockFamilyStorage(models: Models, familyLongId: string, transaction: Transaction): Promise<void> {

    await models.Family.findOne({ where: { family_long_id: familyLongId }, transaction, lock: transaction.LOCK.UPDATE });
}
