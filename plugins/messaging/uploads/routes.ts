import { Readable } from 'stream';

import Boom from '@hapi/boom';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { MemoryLocker, Server as TusServer } from '@tus/server';
import { ERRORS, TUS_RESUMABLE } from '@tus/utils';
import Joi from 'joi';

import { principalOf } from '../../../gateway/principal';
import { attachmentPolicy } from '../../../lib/accounts/messaging-policy';
import { apiError, type ErrorCode } from '../../../lib/errors';
import { recordId } from '../../../lib/ids';
import { attachmentSizeRefusal } from '../../../lib/messaging/upload-files';
import { withBodyChecks } from '../../../lib/request-bodies';
import { uploadRequests, type UploadOwner, type UploadRequest, type UploadsContext } from './context';
import { finishUpload } from './finish';
import { RedisUploadLocker } from './redis-locker';
import { MessagingUploadStore } from './store';

/** What the tus server reads of a request: the protocol's headers and the body's type and length (no method override, no forwarded host). */
const passedHeaders = new Set(['tus-resumable', 'upload-length', 'upload-defer-length', 'upload-offset', 'upload-metadata', 'upload-concat', 'upload-checksum', 'content-type', 'content-length']);
const answeredHeaders = ['tus-resumable', 'tus-version', 'tus-extension', 'tus-max-size', 'upload-offset', 'upload-length', 'upload-metadata', 'upload-expires', 'location', 'cache-control'];

// Large files on slow connections take a while to arrive; a PATCH cut short keeps what came.
const UPLOAD_TIMEOUT_MS = 10 * 60 * 1000;

/** A plain-text error of the tus server as this API answers it: a 4xx with a stable code (tus's 501 for an extension not offered is the client's request: a 400). */
function tusError(status: number, body: string): Error {

    const message = body.trim();
    const byStatus: Record<number, [number, ErrorCode]> = {
        400: [400, 'invalid_request'],
        403: [400, 'invalid_request'],            // tus's missing Upload-Offset or Content-Type
        404: [404, 'not_found'],
        409: [409, 'conflict'],                   // Upload-Offset is not where the upload is
        410: [410, 'upload_expired'],
        412: [412, 'invalid_request'],            // Tus-Resumable missing: tus says 412
        413: [413, 'too_large'],
        501: [400, 'invalid_request']             // an extension not offered (concatenation, deferred length)
    };
    if (message === ERRORS.ERR_LOCK_TIMEOUT.body) {
        return apiError(409, 'conflict', 'Another request is writing this upload: send HEAD for its Upload-Offset, then resume.');
    }

    const [statusCode, code] = byStatus[status] ?? [];
    return statusCode ? apiError(statusCode, code!, message) : new Error(`The tus server answered ${status}: ${message}`);
}

/** Upload-Checksum (tus checksum extension): `sha256 <base64 digest>`; another algorithm or a malformed one is a 400. */
function checksumOf(request: Request): Buffer | undefined {

    const header = request.headers['upload-checksum'] as string | undefined;
    if (header === undefined) {
        return undefined;
    }

    const [algorithm, digest, ...rest] = header.trim().split(/ +/);
    if (algorithm.toLowerCase() !== 'sha256' || rest.length > 0 || !/^[A-Za-z0-9+/]{43}=$/.test(digest ?? '')) {
        throw apiError(400, 'invalid_request', 'Upload-Checksum must be "sha256 <base64 of the body\'s SHA-256>": sha256 is the one algorithm offered (Tus-Checksum-Algorithm).');
    }

    return Buffer.from(digest, 'base64');
}

function ownerOf(request: Request): UploadOwner {

    const { user, family, device } = principalOf(request);
    return { familyLongId: family.familyLongId, plan: family.plan, userId: user!.id, grantId: device!.grantId };
}

/** The caller's own upload; 404 for another user's or family's, as for none. */
async function ownUpload(context: UploadsContext, owner: UploadOwner, id: string) {

    const row = await context.models.MessagingUpload.findOne({ where: { id, family_long_id: owner.familyLongId, user_id: owner.userId } });
    if (!row) {
        throw apiError(404, 'not_found', `No upload ${id} of yours: it may have expired or been removed.`);
    }

    return row;
}

/** 413 too_large for an Upload-Length over what the plan's attachments may be, before the tus server creates anything. */
function assertAttachmentSize(context: UploadsContext, owner: UploadOwner, request: Request): void {

    const refusal = attachmentSizeRefusal(context.policies(), owner.plan, Number(request.headers['upload-length']));
    if (refusal) {
        throw apiError(413, 'too_large', refusal);
    }
}

/** The tus server, its store and locker, and its hooks: run inside a request's UploadRequest (uploadRequests). */
function tusServer(context: UploadsContext): TusServer {

    return new TusServer({
        path: context.path,
        datastore: new MessagingUploadStore(context),
        locker: context.redis ? new RedisUploadLocker(context.redis, context.redisPrefix) : new MemoryLocker(),
        namingFunction: () => recordId('upl'),
        generateUrl: (_request, { id }) => `${context.publicBaseUrl}${context.path}/${id}`,
        maxSize: () => attachmentPolicy(context.policies().messaging, uploadRequests.getStore()!.owner.plan).max_file_bytes,
        onUploadFinish: async (_request, upload) => {

            await finishUpload(context, upload.id);
            return {};
        },
        onResponseError: (_request, error) => {

            if (error instanceof Error) {
                uploadRequests.getStore()!.failure = error;
            }

            return undefined;
        }
    });
}

/** The request as the tus server reads it (a web Request): the protocol's headers only, the body as it streams in. */
function webRequestOf(request: Request): globalThis.Request {

    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
        if (passedHeaders.has(name)) {
            headers.set(name, String(value));
        }
    }

    const method = request.method.toUpperCase();
    let body: ReadableStream | null = null;
    if (method === 'POST' || method === 'PATCH') {
        // hapi pipes the request into the stream it hands over, and a pipe does not pass on a connection cut mid-body: told here, so the store keeps what came and ends.
        const source = request.payload as Readable;
        request.events.once('disconnect', () => source.destroy(new Error('The client closed the connection in the middle of the body')));
        body = Readable.toWeb(source) as ReadableStream;
    }

    return new globalThis.Request(`http://upload${request.path}`, { method, headers, body, duplex: 'half' } as RequestInit);
}

/**
 * Serves a request with the tus server, inside its UploadRequest; answers its success as is (status and tus
 * headers), and its failure as this API's error with a code: the refusal a hook or the store made, else the
 * tus error's status with a code (tusError()), an unexpected error as itself (a 500 logged, or a 503).
 */
async function served(tus: TusServer, request: Request, h: ResponseToolkit, state: UploadRequest) {

    const answer = await uploadRequests.run(state, () => tus.handleWeb(webRequestOf(request)));
    const text = await answer.text();
    if (answer.status >= 400) {
        const error = state.refusal ?? (answer.status >= 500 ? state.failure : undefined) ?? tusError(answer.status, text);
        if (Boom.isBoom(error)) {
            error.output.headers['Tus-Resumable'] = TUS_RESUMABLE;
        }

        throw error;
    }

    const response = h.response().code(answer.status);
    for (const name of answeredHeaders) {
        const value = answer.headers.get(name);
        if (value !== null) {
            response.header(name, value);
        }
    }

    return response;
}

// Any id is looked up: one that names no upload of the caller's, well-formed or not, is a 404 (ownUpload()).
const uploadIdParams = Joi.object({ id: Joi.string().max(64).required().description('The upload\'s id (`upl_…`), the last segment of its URL.') });

/**
 * `/uploads` of the messaging API: tus 1.0 resumable uploads of message attachments (core, creation,
 * creation-with-upload, checksum sha256, expiration, termination), served by @tus/server (its web handler) with
 * the store and locker of this folder. Every route passes through the gateway (`files:write`); the ownership of
 * an upload, the plan's largest attachment and the checksum header are checked here before tus sees the request.
 */
export function uploadRoutes(context: UploadsContext, routeGroup: string): ServerRoute[] {

    const tus = tusServer(context);
    const gateway = { scope: 'files:write' };
    // hapi's limit would refuse a body over 1 MiB; the tus server bounds each body by the upload's declared length, which assertAttachmentSize() bounded.
    const streamed = { output: 'stream', parse: false, maxBytes: Number.MAX_SAFE_INTEGER, timeout: UPLOAD_TIMEOUT_MS } as const;
    const stateOf = (request: Request): UploadRequest => ({ owner: ownerOf(request), checksum: checksumOf(request) });

    return withBodyChecks([
        {
            method: 'OPTIONS',
            path: '/uploads',
            options: {
                auth: routeGroup,
                plugins: { gateway },
                description: 'What the uploads offer (tus): version, extensions, largest file, checksum algorithm'
            },
            handler: async (request, h) => (await served(tus, request, h, stateOf(request))).header('Tus-Checksum-Algorithm', 'sha256')
        },
        {
            method: 'POST',
            path: '/uploads',
            options: {
                auth: routeGroup,
                plugins: { gateway },
                payload: streamed,
                description: 'Create an upload (tus creation; with creation-with-upload, its first bytes)'
            },
            handler: (request, h) => {

                const state = stateOf(request);
                assertAttachmentSize(context, state.owner, request);
                return served(tus, request, h, state);
            }
        },
        {
            method: 'GET',
            path: '/uploads/{id}',
            options: {
                auth: routeGroup,
                plugins: { gateway },
                // HEAD, which hapi serves with the GET route, answers 200 without a body (tus), not hapi's 204.
                response: { emptyStatusCode: 200 },
                validate: { params: uploadIdParams, query: Joi.object({}) },
                description: 'An upload: HEAD for its Upload-Offset (tus), GET for its state as JSON'
            },
            handler: async (request, h) => {

                const state = stateOf(request);
                const row = await ownUpload(context, state.owner, request.params.id as string);
                if (request.method === 'head') {
                    return served(tus, request, h, state);
                }

                // Under `data`, as every record the messaging API answers.
                return {
                    data: {
                        id: row.id,
                        file_name: row.file_name,
                        size_bytes: row.length_bytes,
                        offset_bytes: row.offset_bytes,
                        complete: row.completed_at !== null,
                        media_type: row.media_type,
                        attached: row.message_id !== null,
                        expires_at: row.message_id ? null : row.expires_at.toISOString()
                    }
                };
            }
        },
        {
            method: 'PATCH',
            path: '/uploads/{id}',
            options: {
                auth: routeGroup,
                plugins: { gateway },
                payload: streamed,
                validate: { params: uploadIdParams },
                description: 'Append bytes at Upload-Offset (tus core; Upload-Checksum: sha256)'
            },
            handler: async (request, h) => {

                const state = stateOf(request);
                await ownUpload(context, state.owner, request.params.id as string);
                return served(tus, request, h, state);
            }
        },
        {
            method: 'DELETE',
            path: '/uploads/{id}',
            options: {
                auth: routeGroup,
                plugins: { gateway },
                validate: { params: uploadIdParams },
                description: 'Terminate an upload (tus termination): its bytes and its share of the quota go'
            },
            handler: async (request, h) => {

                const state = stateOf(request);
                const row = await ownUpload(context, state.owner, request.params.id as string);
                if (row.message_id) {
                    throw apiError(409, 'conflict', 'This upload is attached to a message: deleting the message removes it.');
                }

                return served(tus, request, h, state);
            }
        }
    ]);
}
