import { Op, type Transaction } from 'sequelize';

import type { Policies } from '../../gateway/policies/policy-file';
import type { Models } from '../../models';
import type { MessageAttachment } from '../../models/message';
import { attachmentPolicy } from '../accounts/messaging-policy';
import { ServiceError } from '../errors';
import type { Log } from '../logger';
import { bytes, storageUsed } from '../storage-quota';
import type { UploadFiles } from '../storage/upload-files';
import type { MessageUploads } from './context';

/**
 * Why the plan's messages may not carry a file of `mediaType` (undefined: no type this service recognises),
 * in words for the user; undefined when they may. The policy in force decides: an edit applies to the next check.
 */
export function attachmentRefusal(policies: Policies, plan: string, mediaType: string | undefined): string | undefined {

    const allowed = attachmentPolicy(policies.messaging, plan).media_types;
    if (mediaType !== undefined && allowed.includes(mediaType)) {
        return undefined;
    }

    const label = policies.plans.get(plan)?.label ?? plan;
    if (allowed.length === 0) {
        return `Messages on the ${label} plan carry no attachments.`;
    }

    const content = mediaType === undefined ? 'is of no type this service recognises' : `looks like ${mediaType}`;
    return `The file's content ${content}; messages on the ${label} plan may carry ${allowed.join(', ')}.`;
}

/** What a send attaches: the uploads of one user of a family, to one message. */
export interface AttachUploadsInput {
    familyLongId: string;
    userId: string;
    messageId: string;
    uploadIds: readonly string[];
}

/**
 * Attaches finished uploads to a message, in the message's transaction, and returns them in the order
 * given. Each must be the user's own in the family (404 `not_found` otherwise, as for a missing one or one
 * already removed), finished (409 `upload_incomplete`), held by no other message (409 `conflict`; the same
 * message again is fine), and of a type the family's plan allows now (422 `attachment_policy`: the policy
 * may have changed since the upload finished). The rows are locked until the transaction ends.
 */
export async function attachUploads(models: Models, policies: Policies, input: AttachUploadsInput, transaction: Transaction): Promise<MessageAttachment[]> {

    if (new Set(input.uploadIds).size !== input.uploadIds.length) {
        throw new ServiceError('invalid_request', 'An upload is listed twice: attach each once.');
    }

    const family = await models.Family.findByPk(input.familyLongId, { transaction });
    const rows = input.uploadIds.length === 0 ? [] : await models.MessagingUpload.findAll({
        where: { id: [...input.uploadIds], family_long_id: input.familyLongId, user_id: input.userId },
        transaction,
        lock: transaction.LOCK.UPDATE
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    const now = new Date();
    const attachments: MessageAttachment[] = [];
    for (const id of input.uploadIds) {
        const row = byId.get(id);
        if (!row || !family || (!row.message_id && row.completed_at && row.expires_at <= now)) {
            throw new ServiceError('not_found', `No upload ${id} of yours: it may have expired. Upload the file again.`, 404);
        }

        if (!row.completed_at) {
            throw new ServiceError('upload_incomplete', `Upload ${id} has ${row.offset_bytes} of its ${row.length_bytes} bytes: finish it first (HEAD gives its Upload-Offset).`, 409);
        }

        if (row.message_id && row.message_id !== input.messageId) {
            throw new ServiceError('conflict', `Upload ${id} is attached to another message already: upload the file again to send it twice.`, 409);
        }

        const refusal = attachmentRefusal(policies, family.plan, row.media_type ?? undefined);
        if (refusal) {
            throw new ServiceError('attachment_policy', refusal, 422);
        }

        if (!row.message_id) {
            await row.update({ message_id: input.messageId, attached_at: now }, { transaction });
        }

        attachments.push({ upload_id: row.id, file_name: row.file_name, media_type: row.media_type!, size_bytes: row.length_bytes });
    }

    return attachments;
}

/** What releasing uploads works with: the rows, their bytes, and the log for a file that could not be removed. */
export interface ReleaseUploadsContext {
    models: Models;
    files: UploadFiles;
    log: Log;
}

/**
 * Deletes uploads of the family (a deleted message's attachments) in `transaction`, which frees their share
 * of the storage quota, and their bytes once it commits (nothing is removed if it rolls back). A file that
 * cannot be removed costs disk space only: it is logged. Resolves to how many rows it deleted.
 */
export async function releaseUploads(context: ReleaseUploadsContext, familyLongId: string, uploadIds: readonly string[], transaction: Transaction): Promise<number> {

    if (uploadIds.length === 0) {
        return 0;
    }

    const rows = await context.models.MessagingUpload.findAll({ attributes: ['id'], where: { id: { [Op.in]: [...uploadIds] }, family_long_id: familyLongId }, transaction });
    const ids = rows.map((row) => row.id);
    await context.models.MessagingUpload.destroy({ where: { id: ids }, transaction });
    transaction.afterCommit(async () => {

        for (const id of ids) {
            await context.files.remove(id).catch((error: Error) => context.log(['messaging', 'error'], `could not remove the bytes of upload ${id}: ${error.stack ?? error}`));
        }
    });
    return ids.length;
}

/**
 * The uploads as messages claim and release them (MessagingContext.uploads). A claim rechecks the family's storage
 * quota too: its uploads counted from their creation, the family may be over its quota now (its plan changed since).
 */
export function messageUploads(context: ReleaseUploadsContext & { policies: () => Policies }): MessageUploads {

    return {
        async claim(actor, messageId, uploadIds, transaction) {

            const input = { familyLongId: actor.familyLongId, userId: actor.userId, messageId, uploadIds };
            const attachments = await attachUploads(context.models, context.policies(), input, transaction);
            const family = await context.models.Family.findByPk(actor.familyLongId, { transaction });
            const plan = family && context.policies().plans.get(family.plan);
            const quota = plan?.storage_quota_bytes ?? 0;
            const used = await storageUsed(context.models, actor.familyLongId, transaction);
            if (used > quota) {
                throw new ServiceError('quota_exceeded', `The family's files take ${bytes(used)}, more than the ${plan?.label ?? ''} plan's storage of ${bytes(quota)}: delete some files to send new ones.`, 413);
            }

            return attachments;
        },
        async release(familyLongId, uploadIds, transaction) {

            await releaseUploads(context, familyLongId, uploadIds, transaction);
        }
    };
}
