import type { Request, ResponseToolkit } from '@hapi/hapi';

import { apiError } from '../../lib/errors';
import { withoutContentCoding } from '../../lib/entity-tags';
import { contentDisposition } from '../../lib/file-name-text';
import { assertPreconditions, preconditionsOf } from '../../lib/preconditions';
import { BlobNotFoundError } from '../../lib/storage';
import { unmodified } from '../../lib/unmodified';
import { fileResourceNames, resources, type ResourceName } from '../../models/resources';
import { requestedRange, unsatisfiable } from './byte-range';
import type { FilesContext } from './context';
import { fileNameOf } from './file-name';
import { fileWithheld, signedUrlRedaction } from './living-files';
import { nowInSeconds, verifyFileToken } from './signed-urls';

const gone = () => apiError(404, 'not_found', 'This file no longer exists.');

// Whatever a file holds runs nothing on this origin, which the hosted site shares: no script, no
// requests, no access to its cookies or storage (`sandbox`), should a policy ever let an SVG or HTML in.
// Not for PDFs: browsers' PDF viewers refuse to work in a sandbox, and run a PDF's scripts apart from any origin.
const sandboxed = 'default-src \'none\'; style-src \'unsafe-inline\'; sandbox';
const contentSecurityPolicy = (mediaType: string) => (mediaType === 'application/pdf' ? undefined : sandboxed);

/**
 * `GET /files/{token}`: the bytes of the file a signed URL grants, with its type, ETag
 * (its SHA-256) and one byte range at most. The URL is the credential: no key is needed,
 * and it works until it expires (cached privately for no longer than that). One issued to a key
 * that sees living persons redacted serves no file of a living person's record.
 */
export function serveFileHandler(context: FilesContext) {

    return async (request: Request, h: ResponseToolkit) => {

        const now = nowInSeconds();
        const grant = verifyFileToken(context.signingKey, request.params.token as string, now);
        if (!fileResourceNames.includes(grant.resource as ResourceName)) {
            throw gone();
        }

        const resource = resources[grant.resource as ResourceName];
        const record = await context.models.records[resource.name].findOne({ where: { id: grant.id, storage_key: grant.storageKey } });
        const withheld = record ? await fileWithheld(resource, record, grant.redacted ? signedUrlRedaction(context) : undefined) : false;
        const stored = record && !withheld ? await context.storage.stat(grant.storageKey) : null;
        if (!record || !stored) {
            throw gone();
        }

        const cacheControl = `private, max-age=${grant.expiresAt - now}`;
        const sha256 = record.get('sha256') as string;
        // A record's file never changes after its upload: when the record was made, its content was last modified.
        const uploadedAt = record.get('created_at') as Date;
        const lastModified = uploadedAt.toUTCString();
        // RFC 9110 §13.2.2: If-Match or If-Unmodified-Since (412) before If-None-Match or If-Modified-Since (304), before If-Range.
        const preconditions = preconditionsOf(request);
        const ifMatch = preconditions.ifMatch && withoutContentCoding(preconditions.ifMatch);
        assertPreconditions({ ...preconditions, ifMatch }, { etag: sha256, lastModified: uploadedAt }, 'this URL serves one file, which never changes. Ask for it without the header to learn its ETag and Last-Modified.');
        const notModified = unmodified(request, h, { etag: sha256, modified: lastModified });
        if (notModified) {
            return notModified.header('cache-control', cacheControl);
        }

        const range = requestedRange(request.headers, stored.size, { etag: `"${sha256}"`, lastModified });
        if (range === unsatisfiable) {
            const error = apiError(416, 'range_not_satisfiable', `The requested range holds none of the file's ${stored.size} bytes.`);
            error.output.headers['content-range'] = `bytes */${stored.size}`;
            throw error;
        }

        let stream;
        try {
            stream = await context.storage.open(grant.storageKey, range);
        }
        catch (error) {
            throw error instanceof BlobNotFoundError ? gone() : error;
        }

        const files = context.policies().files;
        const disposition = files.resources.find((entry) => entry.name === grant.resource)!.disposition;
        const mediaType = (record.get('media_type') as string | null) ?? 'application/octet-stream';
        // The rules of an upload's name again, for a file stored before they were (255 bytes, the type's
        // extension): a text kept as `run.bat` is saved as `run.bat.txt`. A name stored since is unchanged by them.
        const downloadName = fileNameOf((record.get('original_name') as string | null) ?? 'file', resource, files, mediaType);
        const response = h.response(stream)
            .code(range ? 206 : 200)
            .type(mediaType)
            .bytes(range ? range.end - range.start + 1 : stored.size)
            .header('accept-ranges', 'bytes')
            .header('cache-control', cacheControl)
            .header('x-content-type-options', 'nosniff')
            .header('content-disposition', contentDisposition(disposition, downloadName));

        const policy = contentSecurityPolicy(mediaType);
        if (policy) {
            response.header('content-security-policy', policy);
        }

        return range ? response.header('content-range', `bytes ${range.start}-${range.end}/${stored.size}`) : response;
    };
}
