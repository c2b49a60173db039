import type { ServerResponse } from 'http';

import type { RateLimitDecision, RateLimitRule } from './types';

/**
 * Sets the response headers describing a rate-limit decision, in two dialects:
 *
 * draft-ietf-httpapi-ratelimit-headers-11 (structured fields, RFC 9651 lists of string items):
 *   RateLimit-Policy: "key";q=600;w=60, "family";q=1200;w=60   every policy: quota q per window w seconds
 *   RateLimit: "key";r=12;t=30                                  the tightest: r remaining, t seconds to reset
 *
 * The older drafts (up to -06) that many clients and gateways still read, for the tightest rule:
 *   RateLimit-Limit: 600, RateLimit-Remaining: 12, RateLimit-Reset: 30 (delta seconds)
 *
 * Plus Retry-After (delta seconds) when the request was denied.
 *
 * The gateway gives `response` Node's response itself, as the decision is made: whatever hapi
 * then writes carries them (a success, an error, a refusal by a later policy), with no
 * onPreResponse step to pay on every request (lib/route-steps.ts says why).
 */
export function writeRateLimitHeaders(decision: RateLimitDecision, response: Pick<ServerResponse, 'setHeader'>): void {

    const { tightest } = decision;
    response.setHeader('ratelimit-policy', policyHeader(decision.rules));
    response.setHeader('ratelimit', `${structuredString(tightest.rule.policy)};r=${tightest.remaining};t=${tightest.resetSeconds}`);
    response.setHeader('ratelimit-limit', String(tightest.rule.limit));
    response.setHeader('ratelimit-remaining', String(tightest.remaining));
    response.setHeader('ratelimit-reset', String(tightest.resetSeconds));
    if (decision.retryAfterSeconds !== undefined) {
        response.setHeader('retry-after', String(decision.retryAfterSeconds));
    }
}

// The policies of a key change only with a policy edit: the gateway reuses its rules, and so this header, meanwhile.
const policyHeaders = new WeakMap<readonly RateLimitRule[], string>();

function policyHeader(rules: readonly RateLimitRule[]): string {

    let header = policyHeaders.get(rules);
    if (header === undefined) {
        header = rules.map((rule) => `${structuredString(rule.policy)};q=${rule.limit};w=${rule.windowSeconds}`).join(', ');
        policyHeaders.set(rules, header);
    }

    return header;
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
