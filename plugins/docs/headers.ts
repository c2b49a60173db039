import type { PolicyRef } from '../../gateway/policies/gateway-file';
import { requestIdPattern } from '../../lib/request-id';
import type { HeaderObject, Reference, ResponseObject } from './openapi-types';
import type { RouteFacts } from './route-facts';

const text = { type: 'string' };
const seconds = { type: 'integer', minimum: 0 };

/** The response headers the family API sends, as components.headers. */
export const responseHeaders = {
    'RateLimit-Policy': { description: 'Every rate-limit policy that applies (draft-ietf-httpapi-ratelimit-headers): `"key";q=600;w=60, "family";q=1200;w=60` is a quota q per window w seconds, per key and per family.', schema: text },
    'RateLimit': { description: 'The tightest policy now: `"key";r=12;t=30` is r requests remaining, t seconds until the window resets.', schema: text },
    'RateLimit-Limit': { description: 'The tightest policy\'s quota (older drafts of the RateLimit headers).', schema: seconds },
    'RateLimit-Remaining': { description: 'Requests left in the tightest policy\'s window.', schema: seconds },
    'RateLimit-Reset': { description: 'Seconds until the tightest policy\'s window resets.', schema: seconds },
    'Retry-After': { description: 'Seconds to wait before trying again.', required: true, schema: seconds },
    'WWW-Authenticate': { description: '`Bearer realm="family-records"` (with `error="invalid_token"` for a device\'s access token): send the credential the security scheme names.', required: true, schema: text },
    'Link': { description: '`<url>; rel="next"` when there is a next page: the same query with its cursor.', schema: text },
    'Location': { description: 'The URL of the created record.', required: true, schema: text },
    'ETag': { description: 'The record\'s revision as a strong entity tag, `"4"`: the same as `"` + `revision` + `"` of a list or a webhook. Send it in If-Match to change or delete the record only if nobody has changed it since, or in If-None-Match to read it only when it has changed. It names the revision, not the bytes: a gallery item\'s signed links change with time while its revision does not.', required: true, schema: text },
    'Idempotent-Replayed': { description: '`true` when the answer is the stored one of an earlier create with the same `Idempotency-Key`: nothing was created this time.', schema: text },
    'Content-Disposition': { description: 'For exports (a `format` other than json): `attachment` (`inline` for HTML) with a file name naming the family, the resource and the date.', schema: text },
    'Content-Range': { description: 'A range\'s bytes and the file\'s size, `bytes 0-9/1000`; `bytes */1000` when no byte was in the range.', required: true, schema: text },
    'X-Request-Id': { description: 'The request\'s id, on every response: quote it when reporting a problem, the service\'s log names it. The service makes it (`req_…`), or keeps the one its own proxy sent.', required: true, schema: { type: 'string', pattern: requestIdPattern.source } }
} as const satisfies Record<string, HeaderObject>;

export type HeaderName = keyof typeof responseHeaders;

/** The headers of the rate-limit policy, on every response it has seen. */
export const rateLimitHeaderNames: readonly HeaderName[] = ['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** References to components.headers, ready for a response's `headers`. */
export function headerRefs(names: readonly HeaderName[]): Record<string, Reference> {

    return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** The gateway policy that counts requests: a request it has seen is answered with the rate-limit headers. */
export const countsRequests = (policy: PolicyRef): boolean => policy.enabled && policy.name === 'rate-limit';

const requestIdHeader = headerRefs(['X-Request-Id']);

/** The responses, each with X-Request-Id: every response of the service carries it (lib/request-id.ts). */
export function withRequestIdHeaders(responses: Record<string, ResponseObject>): Record<string, ResponseObject> {

    return Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, { ...response, headers: { ...response.headers, ...requestIdHeader } }]));
}

/** A route whose gateway chain limits rates sends the rate-limit headers with its responses. */
function limitsRates(facts: RouteFacts): boolean {

    return facts.securedBy?.policies.some(countsRequests) ?? false;
}

/** The response, with the rate-limit headers when the route limits rates. */
export function withRateLimitHeaders(facts: RouteFacts, response: ResponseObject): ResponseObject {

    return limitsRates(facts) ? { ...response, headers: { ...headerRefs(rateLimitHeaderNames), ...response.headers } } : response;
}
