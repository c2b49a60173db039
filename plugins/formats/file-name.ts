/** `Zoë's Family` → `zoes-family`: ASCII letters, digits and dashes only, safe in any file system and header. */
export function fileSlug(text: string): string {

    const slug = text.normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/['’]/g, '')
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60)
        .replace(/-+$/, '');

    return slug || 'family';
}

/** The name as people wrote it, without what file systems refuse or headers cannot carry. */
function unicodeFileName(text: string): string {

    return text.normalize('NFC').replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '-').replace(/\s+/g, ' ').trim().slice(0, 100);
}

/** RFC 5987 `ext-value` encoding: UTF-8, percent-encoded except the attribute characters. */
const rfc5987 = (text: string) => encodeURIComponent(text).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `attachment; filename="the-smiths-persons-2026-11-21.csv"`, plus an RFC 5987 `filename*` keeping
 * the family's own spelling when it is not plain ASCII (RFC 6266 §4.3: clients prefer `filename*`).
 */
export function contentDisposition(disposition: 'attachment' | 'inline', familyName: string, fileStem: string, date: Date, extension: string): string {

    const day = date.toISOString().slice(0, 10);
    const header = `${disposition}; filename="${fileSlug(familyName)}-${fileSlug(fileStem)}-${day}.${extension}"`;
    const spelled = unicodeFileName(familyName);
    if (/^[\x20-\x7e]*$/.test(familyName) || !spelled) {
        return header;
    }

    return `${header}; filename*=UTF-8''${rfc5987(`${spelled}-${fileStem}-${day}.${extension}`)}`;
}
