import Crypto from 'crypto';

import type { Transaction } from 'sequelize';

import type { StoredBlob } from '../../lib/storage';
import { fileResourceNames } from '../../models/resources';
import type { FilesContext } from './context';

// First key of the two-key advisory locks on blobs, so they never meet other advisory locks.
const BLOB_LOCKS = 0x66726201;

/**
 * Uploads and removals of one blob take turns until the transaction ends: an upload must
 * not count on a blob that a deletion is removing. PostgreSQL: an advisory lock keyed by the
 * blob (records of different families may share one). SQLite has one writer at a time already.
 */
async function lockBlob(context: FilesContext, key: string, transaction: Transaction): Promise<void> {

    const sequelize = context.models.Family.sequelize!;
    if (sequelize.getDialect() !== 'postgres') {
        return;
    }

    const blob = Crypto.createHash('sha256').update(key).digest().readInt32BE(0);
    await sequelize.query('SELECT pg_advisory_xact_lock(:namespace, :blob)', { replacements: { namespace: BLOB_LOCKS, blob }, transaction });
}

/** Called in an upload's transaction: the blob is there, and stays until this transaction ends. */
export async function holdBlob(context: FilesContext, blob: StoredBlob, data: Buffer, transaction: Transaction): Promise<void> {

    await lockBlob(context, blob.key, transaction);
    if (!(await context.storage.stat(blob.key))) {
        // A deletion removed the last copy between our put() and this transaction.
        await context.storage.put(data);
    }
}

/** Which of `keys` some record (of any family) holds. */
export async function referencedKeys(context: FilesContext, keys: readonly string[], transaction?: Transaction): Promise<Set<string>> {

    const referenced = new Set<string>();
    for (const name of fileResourceNames) {
        const rows = await context.models.records[name].findAll({ attributes: ['storage_key'], where: { storage_key: [...keys] }, group: ['storage_key'], raw: true, transaction });
        for (const row of rows as unknown as { storage_key: string }[]) {
            referenced.add(row.storage_key);
        }
    }

    return referenced;
}

/**
 * Removes the blob when no record (of any family) holds it any more: after a deletion, an
 * upload that was refused, or when the sweep finds it unreferenced. Resolves to whether it
 * removed it. Never throws: the caller's outcome stands, and a blob left behind costs only
 * disk space, so a failure is logged.
 */
export async function releaseBlob(context: FilesContext, key: string): Promise<boolean> {

    try {
        return await context.transaction(async (transaction) => {

            await lockBlob(context, key, transaction);
            if ((await referencedKeys(context, [key], transaction)).size > 0) {
                return false;
            }

            await context.storage.remove(key);
            return true;
        });
    }
    catch (error) {
        context.log(['files', 'error'], `could not release stored file ${key}: ${(error as Error).stack ?? error}`);
        return false;
    }
}
