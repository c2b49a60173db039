import type { PluginSpecificConfiguration } from '@hapi/hapi';

/*
 * What the API reference says of `GET /files/{token}`: a public route outside the gateway's
 * route groups, so it declares its responses and the codes its handler answers itself.
 */

const text = { type: 'string' };

const fileHeaders = {
    'ETag': { description: 'The file\'s SHA-256, quoted: send it in If-None-Match (304), If-Range or If-Match.', required: true, schema: text },
    'Last-Modified': { description: 'When the file was uploaded (it never changes): send it in If-Modified-Since (304), If-Range or If-Unmodified-Since.', required: true, schema: text },
    'Cache-Control': { description: '`private, max-age=<seconds>`: for no longer than the URL is valid.', required: true, schema: text },
    'Accept-Ranges': { description: '`bytes`: ask for one byte range with `Range: bytes=first-last`, `first-` or `-suffix`.', required: true, schema: text },
    'Content-Disposition': { description: '`inline` (gallery) or `attachment` (documents), with the uploaded file\'s name as an ASCII `filename` and a UTF-8 `filename*` (RFC 6266).', required: true, schema: text },
    'X-Content-Type-Options': { description: '`nosniff`: the type is the one detected at upload.', required: true, schema: text },
    'Content-Security-Policy': { description: '`default-src \'none\'; style-src \'unsafe-inline\'; sandbox` on every file but PDFs (whose viewers refuse a sandbox): nothing in a file runs as a page of this origin.', required: false, schema: text }
};

// The bytes, as the type detected at upload, whatever it is.
const fileContent = { '*/*': {} };

export const serveFileDocs: NonNullable<PluginSpecificConfiguration['docs']> = {
    responses: {
        200: { description: 'The whole file, as its detected type: also for several ranges, a malformed Range, or an If-Range naming another version.', headers: fileHeaders, content: fileContent },
        206: { description: 'The one byte range asked for.', headers: { ...fileHeaders, 'Content-Range': { $ref: '#/components/headers/Content-Range' } }, content: fileContent },
        304: { description: 'If-None-Match named the file\'s ETag, or was `*`, or (without If-None-Match) If-Modified-Since is not before its Last-Modified: the cached copy is current.', headers: { 'ETag': fileHeaders.ETag, 'Last-Modified': fileHeaders['Last-Modified'], 'Cache-Control': fileHeaders['Cache-Control'] } }
    },
    headers: ['If-Match', 'If-None-Match', 'If-Unmodified-Since'],
    // It reads the record, to serve no file of one deleted since: so it too fails when the database does not answer.
    errors: ['invalid_signature', 'url_expired', 'range_not_satisfiable', 'service_unavailable'],
    errorTexts: {
        invalid_request: 'The token is longer than any this service issues (1,000 characters), or the URL has a query: this route takes none; or If-Match is neither `*` nor entity tags.',
        precondition_failed: 'If-Match does not name the file\'s ETag, or If-Unmodified-Since is before its upload: this URL serves another file than the one you name.',
        not_found: 'The file is gone: its gallery item or document was deleted after the URL was issued; or the URL was issued to a key with `living_persons: redacted` and the record now concerns a living person.'
    }
};
