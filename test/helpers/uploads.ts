import type { Server, ServerInjectResponse } from '@hapi/hapi';
import * as Tus from 'tus-js-client';

import { editPolicyFile } from './policy-files';
import { freePort } from './ports';
import { copyPolicies, testServer, type TestServerOptions } from './server';

/**
 * A policies copy for upload tests: small quotas and limits (the Family plan: 100,000 bytes of storage, 60,000 per
 * gallery or document file, 80,000 per attachment), and the clean-up of expired uploads every second.
 */
export function uploadPolicies(): string {

    const dir = copyPolicies();
    editPolicyFile(dir, 'plans.yaml', 'max_upload_bytes: 10485760          # 10 MiB\n    storage_quota_bytes: 1073741824     # 1 GiB',
        'max_upload_bytes: 60000\n    storage_quota_bytes: 100000');
    editPolicyFile(dir, 'messaging.yaml', 'max_file_bytes: 10485760         # 10 MiB', 'max_file_bytes: 80000');
    editPolicyFile(dir, 'messaging.yaml', 'cleanup_schedule: "0 */10 * * * *"', 'cleanup_schedule: "* * * * * *"');
    return dir;
}

/** A started server on a port of its own whose public address is `publicPort`'s (a relay in front of it), by default its own. */
export async function uploadServer(options: TestServerOptions & { port?: number; publicPort?: number } = {}): Promise<{ server: Server; baseUrl: string }> {

    const { port = await freePort(), publicPort = port, ...serverOptions } = options;
    const baseUrl = `http://127.0.0.1:${publicPort}`;
    const server = await testServer({ policiesDir: uploadPolicies(), ...serverOptions, env: { PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl, ...options.env } });
    await server.start();
    return { server, baseUrl };
}

/** What a tus-js-client upload ended with, and every response it read (method, status, Upload-Offset). */
export interface TusOutcome {
    url: string | null;
    error?: Error & { originalResponse?: Tus.HttpResponse | null };
    responses: { method: string; status: number; offset: string | undefined }[];
}

/** Uploads `file` with tus-js-client, as the desktop client would; resolves once it succeeded or failed for good. */
export function tusUpload(file: Buffer, accessToken: string, options: Tus.UploadOptions): Promise<TusOutcome> {

    return new Promise((resolve) => {

        const responses: TusOutcome['responses'] = [];
        const upload: Tus.Upload = new Tus.Upload(file, {
            retryDelays: null,
            ...options,
            headers: { Authorization: `Bearer ${accessToken}`, ...options.headers },
            onAfterResponse(request, response) {

                responses.push({ method: request.getMethod(), status: response.getStatus(), offset: response.getHeader('Upload-Offset') });
            },
            onSuccess: () => resolve({ url: upload.url, responses }),
            onError: (error) => resolve({ url: upload.url, error, responses })
        });
        upload.start();
    });
}

/** A tus request through server.inject: Tus-Resumable and the token set. */
export function tusRequest(server: Server, accessToken: string, method: string, url: string, headers: Record<string, string> = {},
    payload?: Buffer): Promise<ServerInjectResponse> {

    return server.inject({ method, url, headers: { authorization: `Bearer ${accessToken}`, 'tus-resumable': '1.0.0', ...headers }, payload });
}

/** Upload-Metadata of a file name and declared type. */
export const uploadMetadata = (filename: string, filetype = 'application/octet-stream') => `filename ${Buffer.from(filename).toString('base64')},filetype ${Buffer.from(filetype).toString('base64')}`;

/** The upload id of an upload URL. */
export const uploadIdOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
