/*
 * What every file name this service hands out needs, whoever wrote it: uploads in
 * plugins/files and message attachments (the client's name), exports in plugins/formats (the family's name).
 */

// Control and invisible formatting characters (a right-to-left override can show
// `photo\u202Egpj.exe` as `photoexe.jpg`), and line and paragraph separators; but not the
// zero-width joiner and non-joiner, which are part of how words and emoji are spelled (a
// family emoji is three joined with ZWJ; Persian and Hindi write ZWNJ inside words), and only
// choose how letters connect.
const invisible = /(?![\u200C\u200D])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** The text without the characters that are not shown or that change how the rest is shown. */
export const withoutInvisibles = (text: string) => text.replace(invisible, '');

/** RFC 5987 `ext-value` encoding (`filename*`): UTF-8, percent-encoded except the attribute characters. */
export const rfc5987 = (text: string) => encodeURIComponent(text).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/** What most file systems take for one name: 255 bytes (ext4, XFS); NTFS and APFS count units or characters, never more than UTF-8 bytes. */
export const fileNameBytes = 255;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The start of `text` that fits in `maxCharacters` characters (code points, as the database counts them) and
 * `maxBytes` bytes of UTF-8, cut between grapheme clusters: never inside an accented letter, a flag or a joined
 * emoji, nor a surrogate pair.
 */
export function cutToFit(text: string, maxCharacters: number, maxBytes: number): string {

    let characters = 0;
    let bytes = 0;
    let kept = '';
    for (const { segment } of graphemes.segment(text)) {
        characters += Array.from(segment).length;
        bytes += Buffer.byteLength(segment);
        if (characters > maxCharacters || bytes > maxBytes) {
            break;
        }

        kept += segment;
    }

    return kept;
}

// Characters Windows refuses in file names.
const reservedOnWindows = /[<>:"|?*]/g;
// Leading dots make hidden files (or `..`); Windows drops trailing dots and spaces.
const dotsAndSpacesAtEnds = /^[\s.]+|[\s.]+$/gu;
// Names Windows keeps for devices, whatever follows a dot (`CON`, `nul.txt`, `com1.tar.gz`, `aux .png`):
// saving one opens the device instead of a file.
const deviceNameOnWindows = /^(?:CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]|CONIN\$|CONOUT\$) *(?:\.|$)/iu;

/** `.PNG` of `photo.PNG`; empty without one (`.bashrc` has none: its dots are stripped first). */
export function extensionOf(name: string): string {

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
 * `attachment; filename="Zoe.pdf"; filename*=UTF-8''Zo%C3%AB.pdf` (RFC 6266): the UTF-8 name
 * for browsers, and an ASCII fallback (accents dropped, anything unusual replaced) for the rest.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', name: string): string {

    const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]|["\\%;]/g, '_');
    return `${disposition}; filename="${ascii}"; filename*=UTF-8''${rfc5987(name)}`;
}
