import { isUtf8 } from 'buffer';

import { apiError } from '../../lib/errors';
import type { FileSignature, FilesPolicy } from './policy';

function matches(data: Buffer, signature: FileSignature): boolean {

    return signature.offset + signature.bytes.length <= data.length &&
        signature.bytes.every((byte, index) => byte === null || data[signature.offset + index] === byte);
}

// Tab, line feed, form feed and carriage return are text; other C0 controls and DEL are not.
// UTF-8 never uses bytes below 0x80 inside a multi-byte character, so a byte scan is exact.
const isControlByte = (byte: number) => (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f;

const isPlainText = (data: Buffer) => isUtf8(data) && data.findIndex(isControlByte) === -1;

/** What the content is: the first media type of the policy whose signature matches, then UTF-8 text; undefined when none. */
export function detectMediaType(policy: FilesPolicy, data: Buffer): string | undefined {

    const bySignature = policy.media_types.find((type) => type.signatures?.some((signature) => matches(data, signature)));
    return (bySignature ?? policy.media_types.find((type) => type.utf8_text && isPlainText(data)))?.name;
}

/** The file name extensions of a media type the policy declares; none for one it no longer does (a file uploaded before an edit). */
export const extensionsOf = (policy: FilesPolicy, mediaType: string): readonly string[] => policy.media_types.find((type) => type.name === mediaType)?.extensions ?? [];

/** `Image/JPEG; foo=bar` → `image/jpeg`. */
const essence = (declared: string) => declared.split(';')[0].trim().toLowerCase();

/**
 * The media type an upload is stored as: what its content is, which must be a type the
 * resource accepts and, when the client declared one, the declared type. 415 otherwise.
 */
export function acceptedMediaType(policy: FilesPolicy, resource: string, data: Buffer, declared?: string): string {

    const accepted = policy.resources.find((entry) => entry.name === resource)!.media_types;
    const detected = detectMediaType(policy, data);
    const content = detected ? `looks like ${detected}` : 'is of no type this service recognises';
    const refuse = (message: string) => apiError(415, 'unsupported_media_type', message);

    if (declared === undefined) {
        if (!detected || !accepted.includes(detected)) {
            throw refuse(`The file's content ${content}; ${resource} accepts ${accepted.join(', ')}.`);
        }

        return detected;
    }

    const type = essence(declared);
    if (!accepted.includes(type)) {
        throw refuse(`${type} is not accepted for ${resource}; it accepts ${accepted.join(', ')}.`);
    }

    if (detected !== type) {
        throw refuse(`The file was declared ${type}, but its content ${content}.`);
    }

    return type;
}
