import type { Readable } from 'stream';

import { DataStore, ERRORS, Upload } from '@tus/utils';

import { apiError, ServiceError } from '../../../lib/errors';
import { attachmentFileName, createUpload, declaredFileType, removeUpload } from '../../../lib/messaging/upload-files';
import { isUnstorableText } from '../../../lib/storable-text';
import { currentUploadRequest, refused, type UploadsContext } from './context';
import { deleteExpiredUploads } from './expiry';

const minutes = (count: number) => count * 60_000;

/** The name an attachment is shown under: Upload-Metadata `filename`, made safe (attachmentFileName). */
function fileNameOf(metadata: Upload['metadata']): string {

    const named = metadata?.filename ?? '';
    if (isUnstorableText(named)) {
        throw refused(apiError(400, 'invalid_request', 'Upload-Metadata filename is not text: send the name as UTF-8, base64-encoded.'));
    }

    return attachmentFileName(named);
}

/**
 * The tus server's store: each upload a row of `messaging_uploads` (who, how long, how far) and a file of
 * the upload files (its bytes). Both are shared by every instance, so an upload begun on one continues on
 * another. Offers creation (with upload), expiration, termination, and checksum (sha256): the body of a
 * request that sent Upload-Checksum is kept only when its SHA-256 matches, else dropped with 460.
 */
export class MessagingUploadStore extends DataStore {

    constructor(private readonly context: UploadsContext) {

        super();
        this.extensions = ['creation', 'creation-with-upload', 'expiration', 'termination', 'checksum'];
    }

    /** Counts the declared length against the family's quota from now on; 413 quota_exceeded when it does not fit. */
    override async create(upload: Upload): Promise<Upload> {

        const { owner } = currentUploadRequest();
        const createdAt = new Date();
        try {
            await createUpload(this.context, owner, {
                id: upload.id,
                fileName: fileNameOf(upload.metadata),
                declaredType: declaredFileType(upload.metadata?.filetype),
                lengthBytes: upload.size!,
                createdAt,
                expiresAt: new Date(createdAt.getTime() + this.getExpiration())
            });
        }
        catch (error) {
            throw error instanceof ServiceError ? refused(apiError(error.statusCode, error.code, error.message)) : error;
        }

        upload.creation_date = createdAt.toISOString();
        return upload;
    }

    /**
     * Appends the body at `offset`. Without a checksum what arrived is kept, even from a request cut off
     * (the client resumes from HEAD's Upload-Offset); with one, the whole body or nothing.
     */
    override async write(stream: Readable, id: string, offset: number): Promise<number> {

        const { checksum } = currentUploadRequest();
        const appended = await this.context.files.append(id, offset, stream);
        if (checksum && (appended.error || !appended.sha256.equals(checksum))) {
            await this.context.files.truncate(id, offset);
            if (appended.error) {
                throw appended.error;
            }

            throw refused(apiError(460, 'checksum_mismatch', 'The body does not match its Upload-Checksum: nothing of it was kept. Send it again from the same Upload-Offset.'));
        }

        const reached = offset + appended.written;
        await this.context.models.MessagingUpload.update({ offset_bytes: reached }, { where: { id } });
        if (appended.error) {
            throw appended.error;
        }

        return reached;
    }

    override async getUpload(id: string): Promise<Upload> {

        const row = await this.context.models.MessagingUpload.findByPk(id);
        if (!row) {
            throw ERRORS.FILE_NOT_FOUND;
        }

        return new Upload({
            id,
            size: row.length_bytes,
            offset: row.offset_bytes,
            metadata: { filename: row.file_name, ...row.declared_type ? { filetype: row.declared_type } : {} },
            // The tus server takes the expiry as creation + getExpiration(): this one gives the row's, whatever a reload
            // changed since. A finished upload no longer expires as tus says (an unattached one is removed by expiry.ts).
            creation_date: row.completed_at ? undefined : new Date(row.expires_at.getTime() - this.getExpiration()).toISOString()
        });
    }

    override async remove(id: string): Promise<void> {

        await removeUpload(this.context, id);
    }

    override deleteExpired(): Promise<number> {

        return deleteExpiredUploads(this.context);
    }

    /** From policies/messaging.yaml, read at each call: a reload applies to the next upload. */
    override getExpiration(): number {

        return minutes(this.context.policies().messaging.uploads.expire_after_minutes);
    }
}
