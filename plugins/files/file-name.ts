/*
 * File names come from clients and go back out in Content-Disposition headers, so they
 * are reduced to something safe to store and to show.
 */
import type { FilesPolicy } from './policy';
import { cutToFit, extensionOf, sanitizeFileName } from '../../lib/file-name-text';
import { maxCharactersOf, type ResourceDeclaration } from '../../models/resources';
import { extensionsOf } from './media-types';

/**
 * A file's name by sanitizeFileName()'s rules, with what they take from the resource (the length of its
 * `original_name`) and from files.yaml (the extensions of `mediaType`): the name an upload is kept under,
 * and the one a download is saved as, also for a file kept before these rules.
 */
export const fileNameOf = (name: string, resource: ResourceDeclaration, files: FilesPolicy, mediaType: string): string =>
    sanitizeFileName(name, maxCharactersOf(resource.fields.original_name), extensionsOf(files, mediaType));

/** The title of a file whose upload names none: the name it is kept under without its extension, cut to `maxLength` characters. */
export function titleOfFile(keptName: string, maxLength: number): string {

    const stem = keptName.slice(0, keptName.length - extensionOf(keptName).length);
    return cutToFit(stem, maxLength, Infinity);
}
