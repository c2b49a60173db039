import Joi from 'joi';

import { policyFile } from '../../gateway/policies/policy-file';
import { cronExpression, listsEvery, listsEveryMessage, namedList, namesIn, uniqueStrings } from '../../gateway/policies/schema-parts';
import type { FileSignature, MediaTypePolicy } from '../../lib/media-types';
import { fileResourceNames } from '../../models/resources';

export interface FileResourcePolicy {
    /** A resource whose records carry a file (gallery, documents). */
    name: string;
    /** The media types its uploads may be. */
    media_types: string[];
    /** Content-Disposition of the served file: shown in the browser, or always downloaded. */
    disposition: 'inline' | 'attachment';
    /** Lifetime of the signed URLs that serve its files. */
    signed_url_seconds: number;
}

/** policies/files.yaml: what uploads may be, how files are served, and when unreferenced ones go. */
export interface FilesPolicy {
    /** In detection order: the first type whose signature matches is what a file is. */
    media_types: MediaTypePolicy[];
    resources: FileResourcePolicy[];
    /** Removing stored files no record holds. */
    unreferenced_files: {
        /** A cron expression. */
        sweep_schedule: string;
        /** Files written more recently are kept: an upload may be about to save its record. */
        grace_seconds: number;
    };
}

declare module '../../gateway/policies/policy-file' {
    interface Policies {
        files: FilesPolicy;
    }
}

/** `"FF D8 ?? E0"`: hex bytes separated by spaces, `??` for any byte; parsed to numbers, null for `??`. */
const signatureBytes = Joi.string().custom((text: string, helpers) => {

    if (!/^(?:[0-9A-Fa-f]{2}|\?\?)(?: (?:[0-9A-Fa-f]{2}|\?\?))*$/.test(text) || /^(?:\?\? ?)+$/.test(text)) {
        return helpers.error('signature.bytes');
    }

    return text.split(' ').map((pair) => (pair === '??' ? null : parseInt(pair, 16))) satisfies FileSignature['bytes'];
}).messages({ 'signature.bytes': '"{#value}" must be hex bytes separated by spaces, ?? for any byte, at least one of them known (e.g. "FF D8 FF")' });

const mediaTypeName = Joi.string().pattern(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/)
    .messages({ 'string.pattern.base': '"{#value}" is not a lower-case media type such as image/jpeg' });

// Up to 16 characters: what an upload's shortened name keeps of an extension (file-name.ts).
const fileExtension = Joi.string().max(16).pattern(/^\.[a-z0-9][a-z0-9_-]*$/)
    .messages({ 'string.pattern.base': '"{#value}" is not a lower-case file name extension such as .jpg' });

/** Context of the files schema: the resources whose records carry a file (models/resources). */
type FilesContext = { fileResourceNames: readonly string[] };

export const filesPolicyFile = policyFile({
    fileName: 'files.yaml',
    key: 'files',
    schema: Joi.object<FilesPolicy, true>({
        media_types: namedList(Joi.object<MediaTypePolicy, true>({
            name: mediaTypeName.required(),
            extensions: uniqueStrings(fileExtension).min(1).required(),
            signatures: Joi.array().items(Joi.object({
                offset: Joi.number().integer().min(0).max(1024).default(0),
                // The file's text becomes the bytes (number | null)[] of FileSignature.
                bytes: signatureBytes.required()
            })).min(1),
            utf8_text: Joi.boolean().valid(true)
        }).xor('signatures', 'utf8_text')).min(1).required(),
        resources: namedList(Joi.object<FileResourcePolicy, true>({
            name: Joi.string().required().valid(Joi.in('$fileResourceNames'))
                .messages({ 'any.only': '"{#value}" is not a resource whose records carry a file; those are {$fileResourceNames}' }),
            media_types: uniqueStrings(Joi.string().valid(Joi.in('/media_types', { adjust: (types) => namesIn(types) }))
                .messages({ 'any.only': '"{#value}" is not declared in media_types' })).min(1).required(),
            disposition: Joi.string().valid('inline', 'attachment').required(),
            // A signed URL is a bearer capability: keep it short-lived (at most a day).
            signed_url_seconds: Joi.number().integer().min(1).max(86400).required()
        })).required().custom(listsEvery('fileResourceNames', 'resource whose records carry a file')).messages(listsEveryMessage),
        unreferenced_files: Joi.object<FilesPolicy['unreferenced_files'], true>({
            sweep_schedule: cronExpression.required(),
            // An upload holds its file for a moment before its record commits; a shorter grace would only make some write it twice.
            grace_seconds: Joi.number().integer().min(300).required()
        }).required()
    }),
    context: (): FilesContext => ({ fileResourceNames })
});
