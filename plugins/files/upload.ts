import type { Request, ResponseToolkit } from '@hapi/hapi';
import Joi from 'joi';

import { principalOf } from '../../gateway/principal';
import { storableText } from '../../lib/storable-text';
import { stringOfAtMost } from '../../lib/text-length';
import { fileTitleField, type ResourceDeclaration } from '../../models/resources';
import { decodeCanonicalBase64, decodedLength, isPaddedBase64 } from './base64';
import type { FilesContext } from './context';
import { assertUploadSize } from './quota';
import { storeFile } from './store-file';

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

    // A client written from the file alone names no title: the record takes its file's name (store-file.ts).
    return metadata.fork(fileTitleField, (title) => title.optional().description(`${title.$_getFlag('description')} Default: the file's name as kept (\`original_name\`) without its extension.`)).keys({
        file_base64: Joi.string().custom((value: string, helpers) => (isPaddedBase64(value) ? value : helpers.error('string.base64'))).required()
            .description('The file, base64-encoded (RFC 4648: standard alphabet, padded, no line breaks).')
            .messages({
                'string.empty': '{{#label}} is empty: an upload needs a file of at least one byte',
                'string.base64': '{{#label}} must be base64: the characters A–Z, a–z, 0–9, + and /, padded with = to a multiple of 4, without line breaks or a data: URL\'s prefix (data:…;base64,)'
            }),
        original_name: storableText(stringOfAtMost(1000)).required().description('The file\'s name; any path is dropped, and it is made to end with an extension of the file\'s type (`.txt` is appended to `run.bat` holding text).'),
        mime_type: stringOfAtMost(255).pattern(mediaType, 'media type').description('The file\'s media type; detected from its content when absent.')
            .messages({ 'string.pattern.name': '{{#label}} must be a media type such as image/jpeg, with parameters or without' })
    }).prefs({ convert: false });
}

/**
 * `POST <prefix>/gallery|documents`: decodes the file (its size checked first, against the
 * plan's limit), then stores it and creates its record (store-file.ts), once per `Idempotency-Key`.
 */
export function uploadHandler(resource: ResourceDeclaration, context: FilesContext) {

    return async (request: Request, h: ResponseToolkit) => {

        const { file_base64: encoded, original_name: originalName, mime_type: declaredType, ...metadata } = request.payload as UploadPayload;
        const owner = principalOf(request).family;

        // Before decoding: a file over the limit is refused without the work of decoding it.
        assertUploadSize(context.policies().plans.get(owner.plan)!, decodedLength(encoded));
        const data = decodeCanonicalBase64(encoded, 'file_base64');
        return context.records.createOnce(request, h, {
            create: (createOptions) => storeFile(context, owner, resource, { data, originalName, declaredType, metadata }, {
                async afterCreate(transaction, record) {

                    // A key that reads living persons redacted names none (records' living-writes.ts). Checked in the record's
                    // transaction, once it is made: a gallery item or document changes nobody's being living.
                    await context.records.assertNamesNoLivingPerson(request, resource, metadata, transaction);
                    await createOptions.afterCreate?.(transaction, record);
                }
            }),
            answerOf: async (record, transaction) => ({
                body: { data: await context.records.serializeFor(request, resource, record, transaction) },
                location: `${context.publicBaseUrl}${context.prefix}/${resource.name}/${encodeURIComponent(record.id)}`
            })
        });
    };
}
