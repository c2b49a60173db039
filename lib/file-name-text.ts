/*
 * What every file name this service hands out needs, whoever wrote it: uploads in
 * plugins/files (the client's name) and exports in plugins/formats (the family's name).
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
