import type { Policies } from '../../gateway/policies/policy-file';
import type { Models } from '../../models';
import { ServiceError } from '../errors';
import { sanitizeFileName } from '../file-name-text';
import type { UploadFiles } from '../storage/upload-files';
import type { MessagingActor } from './context';
import { attachmentFileName } from './upload-files';

/** A file a message carries, as a member downloads it: its bytes, the type its content was found to be, and a safe name. */
export interface AttachmentFile {
    bytes: Buffer;
    mediaType: string;
    fileName: string;
}

export interface AttachmentFilesContext {
    models: Models;
    files: UploadFiles;
    policies: () => Policies;
}

/**
 * The bytes of upload `uploadId` attached to a message the actor may see (`messageId`, or any message of
 * `conversationId`): the caller has checked the actor's access to the message or conversation. Anything else (another
 * family's, not attached, its message deleted, its bytes gone) is 404 `not_found`. The name is safe to save as: its
 * type's extension added when it lacks one.
 */
export async function attachmentFile(context: AttachmentFilesContext, actor: MessagingActor, where: { messageId?: string; conversationId?: string },
    uploadId: string): Promise<AttachmentFile> {

    const notFound = new ServiceError('not_found', `No file ${uploadId} in this message.`, 404);
    const upload = await context.models.MessagingUpload.findOne({ where: { id: uploadId, family_long_id: actor.familyLongId } });
    const message = upload?.message_id && (where.messageId === undefined || where.messageId === upload.message_id) && await context.models.Message.findOne({
        where: { id: upload.message_id, family_long_id: actor.familyLongId, deleted_at: null, ...(where.conversationId ? { conversation_id: where.conversationId } : {}) }
    });
    if (!upload || !message || !upload.media_type) {
        throw notFound;
    }

    let bytes: Buffer;
    try {
        bytes = await context.files.read(upload.id);
    }
    catch (error) {
        throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? notFound : error;
    }

    const extensions = context.policies().files.media_types.find((type) => type.name === upload.media_type)?.extensions ?? [];
    return { bytes, mediaType: upload.media_type, fileName: sanitizeFileName(attachmentFileName(upload.file_name), 255, extensions) };
}
