import type { Request, ResponseToolkit } from '@hapi/hapi';
import Joi from 'joi';

import { apiCredentials } from '../../gateway/scopes';
import { storableText } from '../../lib/storable-text';
import { stringOfAtMost } from '../../lib/text-length';
import { maxCharactersOf, type ResourceDeclaration } from '../../models/resources';
import { decodeCanonicalBase64, decodedLength } from './base64';
import { holdBlob, releaseBlob } from './blobs';
import type { FilesContext } from './context';
import { sanitizeFileName } from './file-name';
import { acceptedMediaType } from './media-types';
import { assertUploadSize, assertWithinQuota, lockFamilyStorage, storageUsed } from './quota';

interface UploadPayload {
    file_base64: string;
    original_name: string;
    mime_type?: string;
    [metadata: string]: unknown;
}

// RFC 9110 §8.3.1: type "/" subtype, then any parameters (`image/jpeg`, `text/plain; charset=utf-8`).
const mediaType = /^\s*[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(?:;.*)?$/;

/** An upload body: the resource's writable fields (as its create body has them) and the file. */
export function uploadPayloadSchema(metadata: Joi.ObjectSchema): Joi.ObjectSchema {

    return metadata.keys({
        file_base64: Joi.string().base64({ paddingRequired: true, urlSafe: false }).required()
            .description('The file, base64-encoded (RFC 4648: standard alphabet, padded, no line breaks).')
            .messages({
                'string.empty': '{{#label}} is empty: an upload needs a file of at least one byte',
                'string.base64': '{{#label}} must be base64: the characters A–Z, a–z, 0–9, + and /, padded with = to a multiple of 4, without line breaks or a data: URL\'s prefix (data:…;base64,)'
            }),
        original_name: storableText(stringOfAtMost(1000)).required().description('The file\'s name; any path is dropped.'),
        mime_type: stringOfAtMost(255).pattern(mediaType, 'media type').description('The file\'s media type; detected from its content when absent.')
            .messages({ 'string.pattern.name': '{{#label}} must be a media type such as image/jpeg, with parameters or without' })
    }).prefs({ convert: false });
}

/**
 * `POST /api/v1/gallery|documents`: checks the file (size, base64, type by content), stores
 * it, then creates the record with its change event, checking the storage quota in that
 * same transaction.
 */
export function uploadHandler(resource: ResourceDeclaration, context: FilesContext) {

    const maxNameLength = maxCharactersOf(resource.fields.original_name);

    return async (request: Request, h: ResponseToolkit) => {

        const { file_base64: encoded, original_name: givenName, mime_type: declaredType, ...metadata } = request.payload as UploadPayload;
        const { familyLongId, plan: planName } = apiCredentials(request).family;
        const policies = context.policies();
        const plan = policies.plans.get(planName)!;

        assertUploadSize(plan, decodedLength(encoded));
        const data = decodeCanonicalBase64(encoded, 'file_base64');
        const mediaType = acceptedMediaType(policies.files, resource.name, data, declaredType);
        // Fails fast, before the file is written; the check that counts is in the transaction.
        assertWithinQuota(plan, await storageUsed(context.models, familyLongId), data.length);

        // Written before the transaction: a slow disk write never holds the database's write lock.
        const blob = await context.storage.put(data);
        let record;
        try {
            record = await context.records.createRecord(familyLongId, resource, metadata, {
                serverValues: {
                    original_name: sanitizeFileName(givenName, maxNameLength),
                    media_type: mediaType,
                    size_bytes: blob.size,
                    storage_key: blob.key,
                    sha256: blob.sha256
                },
                async beforeCreate(transaction) {

                    await lockFamilyStorage(context.models, familyLongId, transaction);
                    assertWithinQuota(plan, await storageUsed(context.models, familyLongId, transaction), blob.size);
                    await holdBlob(context, blob, data, transaction);
                }
            });
        }
        catch (error) {
            await releaseBlob(context, blob.key);
            throw error;
        }

        return h.response({ data: context.records.serialize(resource, record) })
            .code(201)
            .header('Location', `${context.publicBaseUrl}/api/v1/${resource.name}/${encodeURIComponent(record.id)}`);
    };
}
