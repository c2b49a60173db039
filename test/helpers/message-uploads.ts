import type { Transaction } from 'sequelize';

import { ServiceError } from '../../lib/errors';
import { recordId } from '../../lib/ids';
import type { MessagingActor } from '../../lib/messaging/context';
import type { MessageUploads } from '../../lib/messaging/context';
import type { MessageAttachment } from '../../models/message';

interface TestUpload {
    actor: MessagingActor;
    attachment: MessageAttachment;
}

/**
 * Uploads held in memory, checked and claimed as lib/messaging/uploads.ts does for a message: the uploader's own
 * only, once, of an allowed type, within the family's quota (files claimed count), claimed when the send commits.
 * Refuses with the ServiceError codes the rechecks read.
 */
export class TestMessageUploads implements MessageUploads {
    readonly allowedTypes = new Set(['image/png', 'image/jpeg', 'application/pdf']);
    readonly quotaBytes = new Map<string, number>();
    /** Set to fail the next claim as a fault would (not a refusal): the flush fails part-way. */
    failNext = false;
    private readonly uploads = new Map<string, TestUpload>();
    private readonly claimed = new Set<string>();

    add(actor: MessagingActor, file: { media_type?: string; size_bytes?: number } = {}): string {

        const id = recordId('upl');
        this.uploads.set(id, { actor, attachment: { upload_id: id, file_name: `${id}.png`, media_type: file.media_type ?? 'image/png', size_bytes: file.size_bytes ?? 1000 } });
        return id;
    }

    isClaimed(id: string): boolean {

        return this.claimed.has(id);
    }

    claim(actor: MessagingActor, _messageId: string, uploadIds: readonly string[], transaction: Transaction): Promise<MessageAttachment[]> {

        if (this.failNext) {
            this.failNext = false;
            return Promise.reject(new Error('the upload store did not answer'));
        }

        const attachments: MessageAttachment[] = [];
        for (const id of uploadIds) {
            const upload = this.uploads.get(id);
            if (!upload || upload.actor.userId !== actor.userId || this.claimed.has(id)) {
                return Promise.reject(new ServiceError('not_found', `No upload ${id} to attach: upload the file again.`, 404));
            }

            if (!this.allowedTypes.has(upload.attachment.media_type)) {
                return Promise.reject(new ServiceError('unsupported_media_type', `${upload.attachment.media_type} files cannot be sent in messages.`, 415));
            }

            attachments.push(upload.attachment);
        }

        const used = [...this.claimed].map((id) => this.uploads.get(id)!).filter((upload) => upload.actor.familyLongId === actor.familyLongId)
            .reduce((sum, upload) => sum + upload.attachment.size_bytes, 0);
        const adding = attachments.reduce((sum, attachment) => sum + attachment.size_bytes, 0);
        if (used + adding > (this.quotaBytes.get(actor.familyLongId) ?? Infinity)) {
            return Promise.reject(new ServiceError('quota_exceeded', 'These files would take the family past its storage quota.', 413));
        }

        transaction.afterCommit(() => uploadIds.forEach((id) => this.claimed.add(id)));
        return Promise.resolve(attachments);
    }

    release(): Promise<void> {

        return Promise.resolve();
    }
}
