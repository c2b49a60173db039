import { cutToFit, fileNameBytes, rfc5987, withoutInvisibles } from '../../lib/file-name-text';
import { foldForSearch } from '../../models/search-text';

/**
 * `Zoë's Family` → `zoes-family`: ASCII letters, digits and dashes only, safe in any file system and header.
 * Letters are folded as search folds them, so `Łukasz`, `Østergaard` and `Strauß` keep their letters.
 */
export function fileSlug(text: string): string {

    const slug = foldForSearch(text)
        .replace(/['’]/g, '')
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60)
        .replace(/-+$/, '');

    return slug || 'family';
}

/**
 * The name as people wrote it, without what file systems refuse or headers cannot carry, nor
 * characters that hide or reorder text (`Zoë \u202Efdp.exe` would show as ending `.pdf`).
 * At most 100 characters, and short enough for the whole file name (`suffix` after it) to fit
 * in a file system's 255 bytes.
 */
function unicodeFileName(text: string, suffix: string): string {

    const spelled = withoutInvisibles(text.normalize('NFC')).replace(/[/\\:*?"<>|]+/g, '-').replace(/\s+/g, ' ').trim();
    return cutToFit(spelled, 100, fileNameBytes - Buffer.byteLength(suffix)).trim();
}

/**
 * `attachment; filename="the-smiths-persons-2026-11-21.csv"`, plus an RFC 5987 `filename*` keeping
 * the family's own spelling when it is not plain ASCII (RFC 6266 §4.3: clients prefer `filename*`).
 */
export function contentDisposition(disposition: 'attachment' | 'inline', familyName: string, fileStem: string, date: Date, extension: string): string {

    const day = date.toISOString().slice(0, 10);
    const header = `${disposition}; filename="${fileSlug(familyName)}-${fileSlug(fileStem)}-${day}.${extension}"`;
    const suffix = `-${fileStem}-${day}.${extension}`;
    const spelled = unicodeFileName(familyName, suffix);
    if (/^[\x20-\x7e]*$/.test(familyName) || !spelled) {
        return header;
    }

    return `${header}; filename*=UTF-8''${rfc5987(spelled + suffix)}`;
}
