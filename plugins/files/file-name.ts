/*
 * File names come from clients and go back out in Content-Disposition headers, so they
 * are reduced to something safe to store and to show.
 */
import type { FilesPolicy } from './policy';
import { cutToFit, fileNameBytes, rfc5987, withoutInvisibles } from '../../lib/file-name-text';
import { maxCharactersOf, type ResourceDeclaration } from '../../models/resources';
import { extensionsOf } from './media-types';

// Characters Windows refuses in file names.
const reservedOnWindows = /[<>:"|?*]/g;
// Leading dots make hidden files (or `..`); Windows drops trailing dots and spaces.
const dotsAndSpacesAtEnds = /^[\s.]+|[\s.]+$/gu;
// Names Windows keeps for devices, whatever follows a dot (`CON`, `nul.txt`, `com1.tar.gz`, `aux .png`):
// saving one opens the device instead of a file.
const deviceNameOnWindows = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]|CONIN\$|CONOUT\$) *(?:\.|$)/iu;

/** `.PNG` of `photo.PNG`; empty without one (`.bashrc` has none: its dots are stripped first). */
function extensionOf(name: string): string {

    const dot = name.lastIndexOf('.');
    return dot > 0 ? name.slice(dot) : '';
}

/** Shortens to `maxLength` characters and to what file systems take, keeping a short extension. */
function shorten(name: string, maxLength: number): string {

    const found = extensionOf(name);
    const extension = Array.from(found).length <= 16 ? found : '';
    const stem = name.slice(0, name.length - extension.length);
    return cutToFit(stem, maxLength - Array.from(extension).length, fileNameBytes - Buffer.byteLength(extension)) + extension;
}

/**
 * The name an uploaded file is kept under: its last path segment only, without invisible
 * characters or ones Windows refuses, never a Windows device name (`_CON.txt` for `CON.txt`),
 * ending with one of the content's `extensions` (the first appended when it does not: a text
 * named `run.bat` would run on Windows; none asked for when there are none), at most `maxLength` characters and 255 bytes; letters
 * of every script stay. `file` when nothing is left.
 * (NUL and halves of surrogate pairs never get here: the upload's schema refuses them, as it
 * does in any text of a body.)
 */
export function sanitizeFileName(name: string, maxLength: number, extensions: readonly string[]): string {

    const lastSegment = name.split(/[/\\]/).pop() ?? '';
    const cleaned = withoutInvisibles(lastSegment.normalize('NFC'))
        .replace(reservedOnWindows, '_')
        .replace(/\s+/gu, ' ')
        .replace(dotsAndSpacesAtEnds, '') || 'file';
    const safe = deviceNameOnWindows.test(cleaned) ? `_${cleaned}` : cleaned;
    const typed = extensions.length === 0 || extensions.includes(extensionOf(safe).toLowerCase()) ? safe : `${safe}${extensions[0]}`;

    return shorten(typed, maxLength);
}

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

/**
 * `attachment; filename="Zoe.pdf"; filename*=UTF-8''Zo%C3%AB.pdf` (RFC 6266): the UTF-8 name
 * for browsers, and an ASCII fallback (accents dropped, anything unusual replaced) for the rest.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', name: string): string {

    const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]|["\\%;]/g, '_');
    return `${disposition}; filename="${ascii}"; filename*=UTF-8''${rfc5987(name)}`;
}
