import { apiError } from '../../lib/errors';
import { detectMediaType } from '../../lib/media-types';
import type { FilesPolicy } from './policy';

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
