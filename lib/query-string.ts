import type { Request } from '@hapi/hapi';

import { apiError } from './errors';

/** The longest part of a bad parameter a message quotes: enough to find it, not the whole of a long one. */
const quotedLength = 100;

const quoted = (text: string) => JSON.stringify(text.length > quotedLength ? `${text.slice(0, quotedLength)}…` : text);

/** Whether `text` is percent-encoded UTF-8: no `%` without two hex digits, no escaped byte outside a UTF-8 character. */
export function isPercentEncodedUtf8(text: string): boolean {

    try {
        decodeURIComponent(text);
        return true;
    }
    catch {
        return false;
    }
}

/**
 * The first `name=value` of a raw query string that is not percent-encoded UTF-8 (`%zz`, a lone
 * `%`, `%ff`), if any. hapi decodes such a query leniently: `%zz` stays as sent and bytes that
 * are not UTF-8 become U+FFFD, so `search=%ff` would search for a character nobody typed.
 */
export const malformedQueryParameter = (query: string): string | undefined => query.split('&').find((parameter) => !isPercentEncodedUtf8(parameter));

/** The raw query string of a request, without its `?`: hapi keeps only the decoded parameters. */
function rawQuery(request: Request): string {

    const url = request.raw.req.url ?? '';
    const start = url.indexOf('?');
    if (start === -1) {
        return '';
    }

    const end = url.indexOf('#', start);
    return url.slice(start + 1, end === -1 ? undefined : end);
}

/** A query that is not percent-encoded UTF-8 is a 400 naming the parameter (after authentication: it counts like any bad query). */
export function refuseMalformedQuery(request: Request): void {

    const query = rawQuery(request);
    const malformed = query.includes('%') ? malformedQueryParameter(query) : undefined;
    if (malformed !== undefined) {
        throw apiError(400, 'invalid_request', `The query parameter ${quoted(malformed)} is not percent-encoded UTF-8: write "%" as %25, and other characters as the %XX escapes of their UTF-8 bytes.`);
    }
}

/** The name of a parameter given more than once (hapi gives its values as an array), if any. */
export function repeatedQueryParameter(query: Record<string, unknown>): string | undefined {

    return Object.keys(query).find((name) => Array.isArray(query[name]));
}

/** The message for a parameter given more than once: joi's would say a repeated `limit` "must be a number". */
export const repeatedParameterMessage = (name: string) => `${quoted(name)} is given more than once: a query parameter takes one value.`;
