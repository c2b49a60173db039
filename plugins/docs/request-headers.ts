import type { ErrorCode } from '../../lib/errors';
import type { JsonSchema, ParameterObject } from './openapi-types';

/**
 * The request headers a route may say its handler reads (`plugins.docs.headers`): the conditional
 * requests of RFC 9110 §13, and a create's Idempotency-Key, each with the error codes it can bring.
 */
export const requestHeaders = {
    'Idempotency-Key': {
        description: 'Makes a retry safe: the create is made once per key of your API key, and the same key with the same path and body within 24 hours answers again what the first did (with `Idempotent-Replayed: true`), creating nothing. '
            + 'With another path or body it is 422 `idempotency_key_reused`. A request that fails stores nothing, so a corrected retry may keep its key. Use a new random key (a UUID) per record to create. '
            + 'A key that is not 1 to 255 printable ASCII characters is 400.',
        errors: ['idempotency_key_reused'],
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' }
    },
    'If-Match': {
        description: 'Carry out the request only if the current ETag is one of these entity tags (`"4"`, or a list: `"4", "5"`), or for `*` whatever it is; '
            + 'otherwise 412 `precondition_failed`, and nothing is done. Compared strongly: a weak tag (`W/"4"`) never matches. '
            + 'Send the ETag you read, and a change someone made since is never overwritten. A value that is neither `*` nor entity tags is 400.',
        errors: ['precondition_failed']
    },
    'If-None-Match': {
        description: 'The ETag of the copy you have (or several, or `*`), compared weakly (`W/"4"` names `"4"`): 304 Not Modified, without a body, while it is current.',
        errors: []
    },
    'If-Unmodified-Since': {
        description: 'An HTTP date (`Fri, 27 Nov 2026 09:00:00 GMT`), read only without If-Match: carry out the request only if the current version '
            + 'has not changed since (a record\'s `updated_at`, a file\'s Last-Modified, to the second); otherwise 412 `precondition_failed`. A value that is not a date is ignored.',
        errors: ['precondition_failed']
    }
} as const satisfies Record<string, { description: string; errors: readonly ErrorCode[]; schema?: JsonSchema }>;

export type RequestHeaderName = keyof typeof requestHeaders;

/** The header as an operation's parameter; a route may require it and say what it means there (plugins.docs requiredHeaders, headerTexts). */
export function headerParameter(name: RequestHeaderName, onRoute: { required?: boolean; description?: string } = {}): ParameterObject {

    const header: { description: string; schema?: JsonSchema } = requestHeaders[name];
    return { name, in: 'header', required: onRoute.required ?? false, description: onRoute.description ?? header.description, schema: header.schema ?? { type: 'string' } };
}
