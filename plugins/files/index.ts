import type { Plugin, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

import { withBodyChecks } from '../../lib/request-bodies';
import type { ListedBlob } from '../../lib/storage';
import type { ResourceRecord } from '../../models/resource-record';
import { fileResourceNames, resources } from '../../models/resources';
import { releaseBlob } from './blobs';
import type { FilesContext, FilesOptions } from './context';
import { documentFileHandler } from './document-file';
import { serveFileHandler } from './serve-file';
import { serveFileDocs } from './serve-file-docs';
import { signedFileUrl } from './signed-urls';
import { storeFile, type FileOwner, type FileToStore } from './store-file';
import { FilesTasks } from './tasks';
import { uploadHandler, uploadPayloadSchema } from './upload';

export type { FilesOptions };

/** What `server.plugins.files` holds. */
export interface FilesApi {
    /** Removes stored files no record holds, written before the grace period; what the schedule runs. Resolves to them. */
    sweepUnreferencedFiles(): Promise<ListedBlob[]>;
    /** Stores a file and creates its record, as an upload does once its body is decoded: how the demo family gets its files. */
    storeFile(owner: FileOwner, resource: 'gallery' | 'documents', file: FileToStore): Promise<ResourceRecord>;
}

declare module '@hapi/hapi' {
    interface PluginProperties {
        files: FilesApi;
    }
}

// Room for JSON around the base64 (which is 4/3 of the file) and the record's other fields.
const ENVELOPE_BYTES = 64 * 1024;
// Large files on slow connections take a while to arrive (hapi's default is 10 s).
const UPLOAD_TIMEOUT_MS = 5 * 60 * 1000;

const optionsSchema = Joi.object({
    routeGroup: Joi.string().required(),
    prefix: Joi.string().pattern(/^\/.*[^/]$/).required(),
    signingKey: Joi.binary().min(32).required(),
    publicBaseUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required()
}).unknown();

/** The largest body an upload route accepts: the largest file any plan allows, base64-encoded. */
function maxUploadBodyBytes(context: FilesContext): number {

    const largest = Math.max(0, ...[...context.policies().plans.values()].map((plan) => plan.max_upload_bytes ?? 0));
    const base64 = Math.ceil(largest / 3) * 4;
    // JSON encoders that write "/" as "\/" (PHP's json_encode by default) lengthen the base64: "/" is
    // about one character in 64 of a picture's or a PDF's (compressed content), so one in 32 leaves room to spare.
    return base64 + Math.ceil(base64 / 32) + ENVELOPE_BYTES;
}

// What the reference says of an upload's 413 and 415: the body's limits, and the file's.
const uploadErrorTexts = {
    too_large: 'The body is larger than the route accepts, or the file larger than the family\'s plan accepts.',
    unsupported_media_type: 'The body is not JSON, or the file is not of a type the resource takes, or not of its declared `mime_type` (the message names what its content looks like).'
};

function uploadRoutes(context: FilesContext): ServerRoute[] {

    const { idempotentCreateDocs } = context.records;
    return fileResourceNames.map((name) => ({
        method: 'POST',
        path: `${context.prefix}/${name}`,
        handler: uploadHandler(resources[name], context),
        options: {
            auth: context.routeGroup,
            plugins: { gateway: { resource: name, operation: 'create' }, docs: { ...idempotentCreateDocs, errors: ['quota_exceeded', 'living_person_protected'], errorTexts: uploadErrorTexts } },
            tags: ['api', name],
            description: `Upload a ${resources[name].singular}: the file (base64) and its fields`,
            payload: { parse: true, allow: 'application/json', maxBytes: maxUploadBodyBytes(context), timeout: UPLOAD_TIMEOUT_MS },
            validate: { query: Joi.object({}), payload: uploadPayloadSchema(context.records.createPayloadSchema(resources[name])) }
        }
    }));
}

/**
 * Uploads of gallery items and documents, their storage and quotas, the signed URLs that
 * serve them, and the periodic removal of stored files no record holds. Builds on the
 * records plugin through `server.plugins.records`. A second version of the API is a second
 * registration, which adds its upload and download routes; the signed URLs, the removal
 * and the records' extensions serve every version, and come with the first.
 */
export const filesPlugin: Plugin<FilesOptions> = {
    name: 'files',
    multiple: true,
    dependencies: ['records'],
    register(server, options) {

        Joi.assert(options, optionsSchema, 'files plugin options');
        const context: FilesContext = { ...options, records: server.plugins.records, policies: () => options.policyStore.current() };
        server.route(withBodyChecks(uploadRoutes(context)));
        // hapi reads a route's payload settings at each request but has no call to change them, so a
        // reload sets the new limit on the upload routes' settings: a raised plan limit needs no restart.
        const followPlans = () => {

            const maxBytes = maxUploadBodyBytes(context);
            for (const name of fileResourceNames) {
                server.match('POST', `${options.prefix}/${name}`)!.settings.payload!.maxBytes = maxBytes;
            }
        };

        server.ext('onPreStart', () => options.policyStore.on('reloaded', followPlans));
        server.ext('onPostStop', () => options.policyStore.removeListener('reloaded', followPlans));
        server.route({
            method: 'GET',
            path: `${options.prefix}/documents/{id}/file`,
            handler: documentFileHandler(context),
            options: {
                auth: options.routeGroup,
                plugins: {
                    gateway: { resource: 'documents', operation: 'read' },
                    docs: {
                        responses: { 302: { description: 'The file is at the signed URL in Location, valid for seconds (policies/files.yaml).', headers: { Location: { description: 'Signed URL serving the file.', required: true, schema: { type: 'string', format: 'uri' } } } } },
                        errorTexts: { not_found: 'No such document, or it has no file; for a key with `living_persons: redacted`, a document concerning a living person has none.' }
                    }
                },
                tags: ['api', 'documents'],
                description: 'Download a document\'s file: a redirect to a signed URL valid for seconds',
                validate: { ...context.records.recordIdValidation(resources.documents), query: Joi.object({}) }
            }
        });

        // What serves every version is the first registration's.
        if (server.plugins.files) {
            return;
        }

        const tasks = new FilesTasks(context);
        server.expose({
            sweepUnreferencedFiles: () => tasks.sweep(),
            storeFile: (owner, resource, file) => storeFile(context, owner, resources[resource], file)
        } satisfies FilesApi);
        // Only while the server runs (not in the CLI); stopped before the database closes.
        server.ext('onPostStart', () => tasks.start());
        server.ext('onPreStop', () => tasks.stop());

        server.route({
            method: 'GET',
            path: '/files/{token}',
            handler: serveFileHandler(context),
            options: {
                // The signed URL is the credential.
                auth: false,
                plugins: { docs: serveFileDocs },
                tags: ['api', 'files'],
                description: 'The bytes of a file, through a signed, expiring URL',
                notes: `The API hands out these URLs: a gallery item's \`url\`, and the redirect of \`GET ${options.prefix}/documents/{id}/file\`. The URL is the credential: no API key is needed, and it works until it expires.`,
                // Ranges are served straight from storage, not by hapi cutting the whole file.
                response: { ranges: false },
                validate: { params: Joi.object({ token: Joi.string().max(1000).required().description('The signed grant: which file, until when.') }), query: Joi.object({}) }
            }
        });

        for (const name of fileResourceNames) {
            server.plugins.records.extend(name, {
                // A file's share of the quota is freed with its record; the blob goes once no record holds it.
                async afterDelete(record) {

                    const key = record.get('storage_key') as string | null;
                    if (key) {
                        await releaseBlob(context, key);
                    }
                }
            });
        }

        server.plugins.records.extend('gallery', {
            fields: {
                url: { type: 'string', format: 'uri', description: 'A signed link to the image, which needs no API key: it works until `url_expires_at`. Absent on an item without a file.' },
                url_expires_at: { type: 'string', format: 'date-time', description: 'When `url` stops working (UTC, ISO 8601).' }
            },
            serialize(row, serialized) {

                // Gallery items made before uploads existed have no file, hence no URL; nor has a living
                // person's item for a key that sees them redacted (only such a key's rows have `redacted`).
                if (row.storage_key && row.redacted !== true) {
                    const { url, expiresAt } = signedFileUrl(context, 'gallery', row, row.redacted === false);
                    serialized.url = url;
                    serialized.url_expires_at = expiresAt.toISOString();
                }
            }
        });
    }
};
