import Joi from 'joi';

import { apiError } from '../../lib/errors';
import type { RateLimitPreset } from '../policies/rate-limits';
import type { Principal } from '../principal';
import { writeRateLimitHeaders } from '../rate-limit/headers';
import type { RateLimitDecision, RateLimitRule } from '../rate-limit/types';
import type { GatewayPolicy, PolicyContext } from './context';

export interface RateLimitConfig {
    /** A preset of rate-limits.yaml for this route group, in place of the one of the family's plan. */
    preset?: string;
}

function enforce({ request, principal }: PolicyContext, decision: RateLimitDecision): void {

    writeRateLimitHeaders(decision, request.raw.res);
    if (!decision.allowed) {
        const limited = decision.tightest.rule === decision.rules[0] ? principal.credentialName : decision.tightest.rule.policy;
        throw apiError(429, 'rate_limited', `Rate limit exceeded for this ${limited}; retry after ${decision.retryAfterSeconds} seconds.`);
    }
}

// A principal's rules, made once per cached principal and preset: the same objects request after request, which the
// stores and the RateLimit-Policy header name and format once. A policy edit brings a new preset, so new rules.
const rulesByPrincipal = new WeakMap<Principal, { preset: RateLimitPreset; rules: readonly RateLimitRule[] }>();

function rulesOf(principal: Principal, preset: RateLimitPreset): readonly RateLimitRule[] {

    const known = rulesByPrincipal.get(principal);
    if (known?.preset === preset) {
        return known.rules;
    }

    const { own, family, user } = principal.rateLimitSubjects;
    const rules = [
        { policy: own.policy, subject: own.subject, limit: preset.per_key.limit, windowSeconds: preset.per_key.window_seconds },
        { policy: family.policy, subject: family.subject, limit: preset.per_family.limit, windowSeconds: preset.per_family.window_seconds },
        ...user && preset.per_user ? [{ policy: user.policy, subject: user.subject, limit: preset.per_user.limit, windowSeconds: preset.per_user.window_seconds }] : []
    ];
    rulesByPrincipal.set(principal, { preset, rules });
    return rules;
}

/** Per credential, per family and, for a credential of a user, per user, with the limits of the route group's preset, else of the family's plan (plans.yaml → rate-limits.yaml). */
export const rateLimit: GatewayPolicy<RateLimitConfig> = {
    config: Joi.object<RateLimitConfig, true>({
        preset: Joi.string().valid(Joi.in('$rateLimitPresetNames'))
            .messages({ 'any.only': '"{#value}" is not a preset in rate-limits.yaml' })
    }),
    countsRequests: true,
    check(context, config) {

        const { principal, policies, rateLimits } = context;
        const presetName = config.preset ?? policies.plans.get(principal.family.plan)?.rate_limit;
        const preset = presetName === undefined ? undefined : policies.rateLimits.get(presetName);
        if (!preset) {
            return;             // cross-references are validated at load; nothing to enforce for an unknown plan
        }

        const decision = rateLimits.hit(rulesOf(principal, preset));

        // The in-process store decides at once; the Redis store after its round-trip.
        return 'then' in decision ? decision.then((decided) => enforce(context, decided)) : enforce(context, decision);
    }
};
