/*
 * What every file name this service hands out needs, whoever wrote it: uploads in
 * plugins/files (the client's name) and exports in plugins/formats (the family's name).
 */

// Control and invisible formatting characters (a right-to-left override can show
// `photo\u202Egpj.exe` as `photoexe.jpg`), and line and paragraph separators.
const invisible = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** The text without the characters that are not shown or that change how the rest is shown. */
export const withoutInvisibles = (text: string) => text.replace(invisible, '');

/** RFC 5987 `ext-value` encoding (`filename*`): UTF-8, percent-encoded except the attribute characters. */
export const rfc5987 = (text: string) => encodeURIComponent(text).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
