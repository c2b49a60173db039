import { apiError } from '../../../lib/errors';
import { attachmentRefusal } from '../../../lib/messaging/uploads';
import { detectMediaType } from '../../../lib/media-types';
import { currentUploadRequest, refused, type UploadsContext } from './context';

/**
 * An upload has all its bytes: what its content is (the signatures of policies/files.yaml, never its name
 * or declared type) must be a type the plan's attachments may be. Then it is complete and waits for a
 * message until `unattached_minutes` have passed; otherwise it is removed, bytes and row, and the request
 * that finished it answered 415 unsupported_media_type.
 */
export async function finishUpload(context: UploadsContext, id: string): Promise<void> {

    const { owner } = currentUploadRequest();
    // An empty PATCH at the end of an upload finished already finishes nothing again.
    if ((await context.models.MessagingUpload.findByPk(id))?.completed_at) {
        return;
    }

    const policies = context.policies();
    const mediaType = detectMediaType(policies.files, await context.files.read(id));
    const refusal = attachmentRefusal(policies, owner.plan, mediaType);
    if (refusal) {
        await context.models.MessagingUpload.destroy({ where: { id } });
        await context.files.remove(id);
        throw refused(apiError(415, 'unsupported_media_type', `${refusal} The upload was removed.`));
    }

    const now = new Date();
    await context.models.MessagingUpload.update({
        media_type: mediaType,
        completed_at: now,
        expires_at: new Date(now.getTime() + policies.messaging.uploads.unattached_minutes * 60_000)
    }, { where: { id } });
}
