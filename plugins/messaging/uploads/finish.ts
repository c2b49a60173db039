import { apiError, ServiceError } from '../../../lib/errors';
import { finishUpload as finishWithContentCheck } from '../../../lib/messaging/upload-files';
import { currentUploadRequest, refused, type UploadsContext } from './context';

/**
 * An upload has all its bytes: checked by its content against the plan's attachments (lib/messaging/upload-files.ts).
 * A refused one is removed, and the request that finished it answered 415 unsupported_media_type.
 */
export async function finishUpload(context: UploadsContext, id: string): Promise<void> {

    try {
        await finishWithContentCheck(context, currentUploadRequest().owner.plan, id);
    }
    catch (error) {
        throw error instanceof ServiceError ? refused(apiError(error.statusCode, error.code, error.message)) : error;
    }
}
