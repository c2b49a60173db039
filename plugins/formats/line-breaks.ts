/** Every way text can end a line (CR LF, CR, VT, FF, NEL, LS, PS: Unicode's mandatory breaks) as a line feed. */
export const withLineFeeds = (text: string): string => text.replace(/\r\n?|[\u000b\u000c\u0085\u2028\u2029]/g, '\n');
