import * as Tus from 'tus-js-client';

import { ApiError, isNetworkFailure, OfflineError, retryAfterOf, SignedOutError } from './errors';
import type { MessagingClient } from './messaging-client';

/** A file to upload; read once, when the upload starts. */
export interface UploadSource {
    name: string;
    size: number;
    type?: string;
    read(): Promise<Buffer>;
}

export interface UploadOptions {
    /** An upload begun before (even by an earlier process): its offset is asked (HEAD), and the rest sent from there. */
    resumeUrl?: string;
    /** Called once the upload exists, before any of its bytes go: the caller keeps the url to resume it after a restart. */
    onCreated(url: string): Promise<void>;
    onProgress?(sentBytes: number, totalBytes: number): void;
    signal?: AbortSignal;
    /** The most bytes one PATCH carries; default: the whole rest of the file. */
    chunkSize?: number;
    /** The delays of the retries after a broken connection or a busy service, each from the offset the service kept. */
    retryDelays?: number[];
}

type TusError = Error & { originalResponse?: Tus.HttpResponse | null; causingError?: unknown };

/**
 * A 401, raised from onAfterResponse: tus-js-client takes any 4xx of its HEAD for an upload that is gone and would
 * start a new one; this keeps it a retry (with a refreshed token) of the same upload.
 */
class TokenRejected extends Error { }

/** The SDK's error for what stopped an upload: OfflineError, SignedOutError, ApiError (413, 415, …), or the caller's own. */
function uploadError(error: TusError): unknown {

    const cause = error.causingError;
    if (cause instanceof OfflineError || cause instanceof SignedOutError || cause instanceof ApiError) {
        return cause;
    }

    const response = error.originalResponse;
    if (response) {
        let body: { message?: unknown; code?: unknown };
        try {
            body = JSON.parse(response.getBody());
        }
        catch {
            body = { message: response.getBody() || error.message };
        }

        return new ApiError(response.getStatus(), body, retryAfterOf(response.getHeader('Retry-After')));
    }

    if (isNetworkFailure(cause)) {
        return new OfflineError(`The upload stopped: the service could not be reached (${(cause as Error).message}).`, { cause: error });
    }

    return cause ?? error;
}

/**
 * Uploads a file with tus (POST /messaging/v1/uploads, then PATCHes), resumable across restarts: the caller keeps
 * the url it is given through onCreated, and passes it back as `resumeUrl`. An expired or unknown resumeUrl
 * (404/410) starts a new upload (onCreated again). Every request gets the session's current token.
 */
export async function uploadFile(client: MessagingClient, source: UploadSource, options: UploadOptions): Promise<{ uploadId: string; url: string }> {

    const file = await source.read();
    const endpoint = `${client.apiUrl}/uploads`;
    return new Promise((resolve, reject) => {

        let token: string | undefined;
        let rejectedToken: string | undefined;              // refused with 401: the next request refreshes first
        let refreshed = false;
        let settled = false;
        const settle = (outcome: () => void) => {

            if (!settled) {
                settled = true;
                options.signal?.removeEventListener('abort', abort);
                outcome();
            }
        };

        const upload = new Tus.Upload(file, {
            endpoint,
            uploadUrl: options.resumeUrl ?? null,
            metadata: { filename: source.name, filetype: source.type ?? 'application/octet-stream' },
            chunkSize: options.chunkSize ?? Infinity,
            retryDelays: options.retryDelays ?? [0, 1000, 3000],
            // The creation carries no bytes, so that the url is kept (onCreated, awaited below) before any are sent.
            uploadDataDuringCreation: false,
            // The caller keeps the url; tus-js-client keeps nothing of its own.
            storeFingerprintForResuming: false,
            removeFingerprintOnSuccess: true,
            async onBeforeRequest(request) {

                token = rejectedToken ? await client.session.refreshAfterRejection(rejectedToken) : await client.session.accessToken();
                rejectedToken = undefined;
                request.setHeader('Authorization', `Bearer ${token}`);
            },
            async onAfterResponse(request, response) {

                if (response.getStatus() === 401) {
                    throw new TokenRejected('The service refused the access token');
                }

                if (request.getMethod() === 'POST' && response.getStatus() === 201) {
                    await options.onCreated(new URL(response.getHeader('Location') ?? '', endpoint).href);
                }
            },
            onShouldRetry(error: TusError) {

                const status = error.causingError instanceof TokenRejected ? 401 : error.originalResponse?.getStatus();
                if (status === 401) {
                    // Once: a refreshed token refused too means the device is signed out.
                    rejectedToken = refreshed ? undefined : token;
                    refreshed = true;
                    return rejectedToken !== undefined;
                }

                return status === undefined ? isNetworkFailure(error.causingError) : [409, 423, 429].includes(status) || status >= 500;
            },
            onProgress: options.onProgress,
            onSuccess: () => settle(() => resolve({ uploadId: upload.url!.slice(upload.url!.lastIndexOf('/') + 1), url: upload.url! })),
            onError: (error) => settle(() => {

                const mapped = uploadError(error as TusError);
                reject((error as TusError).causingError instanceof TokenRejected ? new SignedOutError() : mapped);
            })
        });

        const abort = () => {

            void upload.abort();
            settle(() => reject(options.signal!.reason));
        };

        if (options.signal?.aborted) {
            return abort();
        }

        options.signal?.addEventListener('abort', abort);
        upload.start();
    });
}
