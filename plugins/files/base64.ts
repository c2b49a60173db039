import { apiError } from '../../lib/errors';

// One character class repeated, not a group: V8 matches a repeated group with a stack that a file of a few MiB
// can overflow ("Maximum call stack size exceeded", which joi's `string().base64()` threw now and then for
// uploads within the plans' limits); a single class it matches in a loop that keeps nothing per character.
const base64Text = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether the text is base64 of RFC 4648 §4: the standard alphabet in groups of four, the last padded with `=` or `==` when short. */
export function isPaddedBase64(text: string): boolean {

    return text.length % 4 === 0 && base64Text.test(text);
}

/** The size of the bytes well-formed, padded base64 text decodes to, without decoding it. */
export function decodedLength(text: string): number {

    const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
    return (text.length / 4) * 3 - padding;
}

/**
 * Decodes base64 that the route's schema already found well-formed, refusing what is not
 * canonical (RFC 4648 §3.5: padding bits must be zero). Buffer.from() would quietly accept
 * it, and a damaged upload would be stored as if it were fine.
 */
export function decodeCanonicalBase64(text: string, field: string): Buffer {

    const data = Buffer.from(text, 'base64');
    if (data.toString('base64') !== text) {
        throw apiError(400, 'invalid_request', `"${field}" is not canonical base64: the bits after its last character must be zero.`);
    }

    return data;
}
