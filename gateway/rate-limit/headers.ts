import type { RateLimitDecision } from './types';

/**
 * The response headers describing a rate-limit decision, in two dialects:
 *
 * draft-ietf-httpapi-ratelimit-headers-11 (structured fields, RFC 9651 lists of string items):
 *   RateLimit-Policy: "key";q=600;w=60, "family";q=1200;w=60   every policy: quota q per window w seconds
 *   RateLimit: "key";r=12;t=30                                  the tightest: r remaining, t seconds to reset
 *
 * The older drafts (up to -06) that many clients and gateways still read, for the tightest rule:
 *   RateLimit-Limit: 600, RateLimit-Remaining: 12, RateLimit-Reset: 30 (delta seconds)
 *
 * Plus Retry-After (delta seconds) when the request was denied.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {

    const { tightest } = decision;
    const headers: Record<string, string> = {
        'RateLimit-Policy': decision.states
            .map(({ rule }) => `${structuredString(rule.policy)};q=${rule.limit};w=${rule.windowSeconds}`)
            .join(', '),
        'RateLimit': `${structuredString(tightest.rule.policy)};r=${tightest.remaining};t=${tightest.resetSeconds}`,
        'RateLimit-Limit': String(tightest.rule.limit),
        'RateLimit-Remaining': String(tightest.remaining),
        'RateLimit-Reset': String(tightest.resetSeconds)
    };

    if (decision.retryAfterSeconds !== undefined) {
        headers['Retry-After'] = String(decision.retryAfterSeconds);
    }

    return headers;
}

// Policy names are few ('key', 'family'), and a request through the gateway formats them in every header.
const quotedNames = new Map<string, string>();

// A structured-field String: quoted, with backslash and double quote escaped.
function structuredString(value: string): string {

    let quoted = quotedNames.get(value);
    if (quoted === undefined) {
        quoted = `"${value.replace(/[\\"]/g, '\\$&')}"`;
        quotedNames.set(value, quoted);
    }

    return quoted;
}
