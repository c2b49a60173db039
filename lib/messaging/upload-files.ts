import Path from 'path';

import type { Policies } from '../../gateway/policies/policy-file';
import type { Models } from '../../models';
import { attachmentPolicy } from '../accounts/messaging-policy';
import type { RunInTransaction } from '../database';
import { ServiceError } from '../errors';
import { cutToFit, fileNameBytes, withoutInvisibles } from '../file-name-text';
import { recordId } from '../ids';
import { detectMediaType } from '../media-types';
import { isUnstorableText } from '../storable-text';
import { bytes, lockFamilyStorage, quotaRefusal, storageUsed } from '../storage-quota';
import type { UploadFiles } from '../storage/upload-files';
import { attachmentRefusal } from './uploads';

/*
 * The life of a messaging upload before a message claims it, whoever receives its bytes: the tus
 * uploads of the messaging API (in pieces) and the hosted site's compose form (whole). The same
 * rows of `messaging_uploads`, the same bytes, quota, content check and expiry for both.
 */

/** What an upload is created, written and finished with. */
export interface UploadFilesContext {
    models: Models;
    transaction: RunInTransaction;
    files: UploadFiles;
    /** The policies in force, read at each call. */
    policies: () => Policies;
}

/** Whose upload it is: the user, their family (and its plan) and the device; null for the hosted site. */
export interface UploadOwner {
    familyLongId: string;
    plan: string;
    userId: string;
    grantId: string | null;
}

/** An upload to create: its id, the client's name and type for it, and its length, which counts against the quota from now on. */
export interface NewUpload {
    id: string;
    fileName: string;
    declaredType: string | null;
    lengthBytes: number;
    createdAt: Date;
    /** Upload-Expires: an upload not finished by then is removed. */
    expiresAt: Date;
}

const minutes = (count: number) => count * 60_000;

/** The name an attachment is shown under: the client's name without any path or invisible characters, cut to fit; `attachment` when none is left. */
export const attachmentFileName = (name: string): string => cutToFit(withoutInvisibles(Path.win32.basename(name)).trim(), 255, fileNameBytes) || 'attachment';

/** The type a client declared for a file (tus `filetype`, a form part's Content-Type): kept as its word, never trusted (the content decides). */
export function declaredFileType(declared: string | null | undefined): string | null {

    const trimmed = declared?.trim();
    return trimmed && !isUnstorableText(trimmed) ? cutToFit(trimmed, 255, 255) : null;
}

/** Why a file of `length` bytes is too large for the plan's attachments, in words; undefined when it is not. */
export function attachmentSizeRefusal(policies: Policies, plan: string, length: number): string | undefined {

    // Not a number (a malformed Upload-Length) is not too large: the tus server refuses it itself.
    const { max_file_bytes: limit } = attachmentPolicy(policies.messaging, plan);
    if (!(length > limit)) {
        return undefined;
    }

    const label = policies.plans.get(plan)!.label;
    return limit === 0 ? `Messages on the ${label} plan carry no attachments.` : `The file is ${bytes(length)}; messages on the ${label} plan carry files up to ${bytes(limit)}.`;
}

/**
 * Creates an upload: an empty file, then its row, whose length counts against the family's storage quota
 * from now on, under the family's storage lock. 413 `quota_exceeded` (a ServiceError) when it does not fit;
 * nothing is left behind then.
 */
export async function createUpload(context: UploadFilesContext, owner: UploadOwner, upload: NewUpload): Promise<void> {

    const { models, files } = context;
    const plan = context.policies().plans.get(owner.plan)!;
    await files.create(upload.id);
    try {
        await context.transaction(async (transaction) => {

            await lockFamilyStorage(models, owner.familyLongId, transaction);
            const refusal = quotaRefusal(plan, await storageUsed(models, owner.familyLongId, transaction), upload.lengthBytes);
            if (refusal) {
                throw new ServiceError('quota_exceeded', refusal, 413);
            }

            await models.MessagingUpload.create({
                id: upload.id,
                family_long_id: owner.familyLongId,
                user_id: owner.userId,
                grant_id: owner.grantId,
                file_name: upload.fileName,
                declared_type: upload.declaredType,
                length_bytes: upload.lengthBytes,
                expires_at: upload.expiresAt,
                created_at: upload.createdAt
            }, { transaction });
        });
    }
    catch (error) {
        await files.remove(upload.id);
        throw error;
    }
}

/** Removes an upload no message holds: the row first (its share of the quota is freed at once), then its bytes. */
export async function removeUpload(context: Pick<UploadFilesContext, 'models' | 'files'>, id: string): Promise<void> {

    await context.models.MessagingUpload.destroy({ where: { id, message_id: null } });
    await context.files.remove(id);
}

/**
 * An upload has all its bytes: what its content is (the signatures of policies/files.yaml, never its name
 * or declared type) must be a type the plan's attachments may be. Then it is complete and waits for a
 * message until `unattached_minutes` have passed; otherwise it is removed, bytes and row, with a 415
 * `unsupported_media_type` (a ServiceError). An upload finished already is left as it is.
 */
export async function finishUpload(context: UploadFilesContext, plan: string, id: string): Promise<void> {

    if ((await context.models.MessagingUpload.findByPk(id))?.completed_at) {
        return;
    }

    const policies = context.policies();
    const mediaType = detectMediaType(policies.files, await context.files.read(id));
    const refusal = attachmentRefusal(policies, plan, mediaType);
    if (refusal) {
        await removeUpload(context, id);
        throw new ServiceError('unsupported_media_type', `${refusal} The upload was removed.`, 415);
    }

    const now = new Date();
    await context.models.MessagingUpload.update({
        media_type: mediaType,
        completed_at: now,
        expires_at: new Date(now.getTime() + minutes(policies.messaging.uploads.unattached_minutes))
    }, { where: { id } });
}

/** A file received whole (a form's file field): the client's name and type for it, and its bytes. */
export interface WholeFile {
    name: string;
    declaredType: string | null;
    bytes: Buffer;
}

/**
 * Keeps a file received whole as a complete upload of `owner`, as a tus upload that sent it in one piece
 * would be: the size checked against the plan's attachments (413 `too_large`), created within the
 * quota (413 `quota_exceeded`), written, and finished by its content (415 `unsupported_media_type`), all
 * ServiceErrors. Resolves to the upload's id; a refused or failed file leaves nothing behind.
 */
export async function storeWholeUpload(context: UploadFilesContext, owner: UploadOwner, file: WholeFile): Promise<string> {

    const policies = context.policies();
    const tooLarge = attachmentSizeRefusal(policies, owner.plan, file.bytes.length);
    if (tooLarge) {
        throw new ServiceError('too_large', tooLarge, 413);
    }

    const id = recordId('upl');
    const createdAt = new Date();
    await createUpload(context, owner, {
        id,
        fileName: attachmentFileName(file.name),
        declaredType: file.declaredType,
        lengthBytes: file.bytes.length,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + minutes(policies.messaging.uploads.expire_after_minutes))
    });
    try {
        const appended = await context.files.append(id, 0, [file.bytes]);
        if (appended.error) {
            throw appended.error;
        }

        await context.models.MessagingUpload.update({ offset_bytes: appended.written }, { where: { id } });
        await finishUpload(context, owner.plan, id);
    }
    catch (error) {
        await removeUpload(context, id);
        throw error;
    }

    return id;
}
