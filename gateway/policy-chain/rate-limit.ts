import { apiError } from '../../lib/errors';
import type { ApiKeyCredentials } from '../credentials';
import type { RateLimitPreset } from '../policies/types';
import { writeRateLimitHeaders } from '../rate-limit/headers';
import type { RateLimitDecision, RateLimitRule } from '../rate-limit/types';
import type { GatewayPolicy, PolicyContext } from './context';

function enforce({ request }: PolicyContext, decision: RateLimitDecision): void {

    writeRateLimitHeaders(decision, request.raw.res);
    if (!decision.allowed) {
        throw apiError(429, 'rate_limited', `Rate limit exceeded for this ${decision.tightest.rule.policy === 'key' ? 'API key' : 'family'}; retry after ${decision.retryAfterSeconds} seconds.`);
    }
}

// A key's rules, made once per cached credentials and preset: the same objects request after request, which the
// stores and the RateLimit-Policy header name and format once. A policy edit brings a new preset, so new rules.
const rulesByKey = new WeakMap<ApiKeyCredentials, { preset: RateLimitPreset; rules: readonly RateLimitRule[] }>();

function rulesOf(credentials: ApiKeyCredentials, preset: RateLimitPreset): readonly RateLimitRule[] {

    const known = rulesByKey.get(credentials);
    if (known?.preset === preset) {
        return known.rules;
    }

    const rules = [
        { policy: 'key', subject: credentials.key.id, limit: preset.per_key.limit, windowSeconds: preset.per_key.window_seconds },
        { policy: 'family', subject: credentials.family.familyLongId, limit: preset.per_family.limit, windowSeconds: preset.per_family.window_seconds }
    ];
    rulesByKey.set(credentials, { preset, rules });
    return rules;
}

/** Per key and per family, with the limits of the family's plan (plans.yaml → rate-limits.yaml). */
export const rateLimit: GatewayPolicy = (context) => {

    const { credentials, policies, rateLimits } = context;
    const plan = policies.plans.get(credentials.family.plan);
    const preset = plan && policies.rateLimits.get(plan.rate_limit);
    if (!preset) {
        return;             // cross-references are validated at load; nothing to enforce for an unknown plan
    }

    const decision = rateLimits.hit(rulesOf(credentials, preset));

    // The in-process store decides at once; the Redis store after its round-trip.
    return 'then' in decision ? decision.then((decided) => enforce(context, decided)) : enforce(context, decision);
};
