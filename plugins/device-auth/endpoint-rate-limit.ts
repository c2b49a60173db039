import type { Lifecycle } from '@hapi/hapi';

import type { Policies } from '../../gateway/policies/policy-file';
import { writeRateLimitHeaders } from '../../gateway/rate-limit/headers';
import type { RateLimitDecision, RateLimitStore } from '../../gateway/rate-limit/types';
import { apiError } from '../../lib/errors';

/**
 * The OAuth endpoints' own rate limit, per client address (messaging.yaml endpoint_rate_limit): they lie outside
 * every route group, so no gateway policy counts them. Before the body is read.
 */
export function limitByAddress(store: RateLimitStore, policies: () => Policies): Lifecycle.Method {

    return async (request, h) => {

        const window = policies().messaging.endpoint_rate_limit.per_address;
        const decision: RateLimitDecision = await store.hit([{ policy: 'address', subject: `oauth:${request.clientAddress()}`, limit: window.limit, windowSeconds: window.window_seconds }]);
        writeRateLimitHeaders(decision, request.raw.res);
        if (!decision.allowed) {
            const error = apiError(429, 'rate_limited', `Too many requests from this address; retry after ${decision.retryAfterSeconds} seconds.`);
            error.output.headers['Retry-After'] = String(decision.retryAfterSeconds);
            throw error;
        }

        return h.continue;
    };
}
