import { assertWithinQuota, lockFamilyStorage, storageUsed } from '../../lib/storage-quota';
import { fileTitleField, maxCharactersOf, type ResourceDeclaration } from '../../models/resources';
import type { ResourceRecord } from '../../models/resource-record';
import { holdBlob, releaseBlob } from './blobs';
import type { CreateOptions, FilesContext } from './context';
import { fileNameOf, titleOfFile } from './file-name';
import { acceptedMediaType } from './media-types';
import { assertUploadSize } from './quota';

/** A file for a gallery item or document, and the record's other fields. */
export interface FileToStore {
    data: Buffer;
    /** As the client named it; any path is dropped. */
    originalName: string;
    /** The media type the client declared; detected from the content when absent. */
    declaredType?: string;
    metadata: Record<string, unknown>;
}

/** Whose file it is: the family and its plan (limits, quota). */
export interface FileOwner {
    familyLongId: string;
    plan: string;
}

/**
 * Stores a file and creates its record with its change event: the plan's size limit and the
 * type (by content) checked, the storage quota checked in the record's transaction, the blob
 * held for it. What an upload does once its body is decoded, and how the demo family gets its files.
 * `afterCreate` runs last in the record's transaction (an upload's `Idempotency-Key` stores its answer).
 */
export async function storeFile(context: FilesContext, owner: FileOwner, resource: ResourceDeclaration, file: FileToStore, { afterCreate }: Pick<CreateOptions, 'afterCreate'> = {}): Promise<ResourceRecord> {

    const { familyLongId } = owner;
    const policies = context.policies();
    const plan = policies.plans.get(owner.plan)!;
    const { data } = file;

    assertUploadSize(plan, data.length);
    const mediaType = acceptedMediaType(policies.files, resource.name, data, file.declaredType);
    // Fails fast, before the file is written; the check that counts is in the transaction.
    assertWithinQuota(plan, await storageUsed(context.models, familyLongId), data.length);

    // Written before the transaction: a slow disk write never holds the database's write lock.
    const blob = await context.storage.put(data);
    const originalName = fileNameOf(file.originalName, resource, policies.files, mediaType);
    const metadata = { [fileTitleField]: titleOfFile(originalName, maxCharactersOf(resource.fields[fileTitleField])), ...file.metadata };
    try {
        return await context.records.createRecord(familyLongId, resource, metadata, {
            serverValues: {
                original_name: originalName,
                media_type: mediaType,
                size_bytes: blob.size,
                storage_key: blob.key,
                sha256: blob.sha256
            },
            async beforeCreate(transaction) {

                await lockFamilyStorage(context.models, familyLongId, transaction);
                assertWithinQuota(plan, await storageUsed(context.models, familyLongId, transaction), blob.size);
                await holdBlob(context, blob, data, transaction);
            },
            afterCreate
        });
    }
    catch (error) {
        await releaseBlob(context, blob.key);
        throw error;
    }
}
