import { AsyncLocalStorage } from 'async_hooks';

import type Boom from '@hapi/boom';

import type { PolicyStore } from '../../../gateway/policies/policy-store';
import type { Policies } from '../../../gateway/policies/policy-file';
import type { RunInTransaction } from '../../../lib/database';
import type { Log } from '../../../lib/logger';
import type { UploadOwner as LibUploadOwner } from '../../../lib/messaging/upload-files';
import type { RedisClient } from '../../../lib/redis';
import type { UploadFiles } from '../../../lib/storage/upload-files';
import type { Models } from '../../../models';

/** What the uploads (tus) work with. */
export interface UploadsOptions {
    models: Models;
    transaction: RunInTransaction;
    /** The uploads' bytes, in FILES_DIR, which every instance shares. */
    files: UploadFiles;
    policyStore: PolicyStore;
    /** With Redis, uploads are locked across instances; without, in this process. */
    redis?: RedisClient;
    redisPrefix: string;
    /** Where the uploads' URLs (Location) point. */
    publicBaseUrl: string;
    log: Log;
}

export interface UploadsContext extends UploadsOptions {
    /** `/messaging/v1/uploads`: the path of the creation route, and the uploads' URLs below it. */
    path: string;
    policies: () => Policies;
}

/** Whose request it is: the user, their family (and its plan) and the device. */
export interface UploadOwner extends LibUploadOwner {
    grantId: string;
}

/** One request to the uploads, as the tus server's store and hooks see it (they are handed the upload, not the request). */
export interface UploadRequest {
    owner: UploadOwner;
    /** Upload-Checksum's SHA-256 of the body: the body is kept only if it matches. */
    checksum?: Buffer;
    /** The answer the request gets instead of the tus server's plain-text error: a refusal with its code. */
    refusal?: Boom.Boom;
    /** An unexpected error the tus server turned into a 500, to be answered (and logged) as such. */
    failure?: Error;
}

export const uploadRequests = new AsyncLocalStorage<UploadRequest>();

/** The request being served: every store call and hook runs inside one (routes.ts). */
export function currentUploadRequest(): UploadRequest {

    const request = uploadRequests.getStore();
    if (!request) {
        throw new Error('An upload store call outside an upload request');
    }

    return request;
}

/**
 * Makes `refusal` the request's answer and returns what the tus server throws for it: a tus error
 * (`status_code`, `body`) answered as is by a tus client, and by the route as the refusal, with its code.
 */
export function refused(refusal: Boom.Boom): { status_code: number; body: string } {

    currentUploadRequest().refusal = refusal;
    return { status_code: refusal.output.statusCode, body: refusal.message };
}
