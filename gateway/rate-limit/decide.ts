import type { RateLimitDecision, RateLimitRule, RateLimitState } from './types';

/** The counter a rule uses right now and how long it has left. */
export interface CurrentWindow {
    /**
     * `rl:<policy>:<subject>:<window seconds>:<window start in ms>`; stores may prefix it. The length is part of it:
     * when a policy edit changes a window's length, windows of both lengths can start at the same instant
     * (every hour's first minute, for 60 s and 3,600 s), and must not share a count.
     */
    id: string;
    msUntilReset: number;
}

/** A rule's counter as a store read it, before this request. */
export interface WindowUsage {
    used: number;
    ttlMs: number;
}

// Windows start at multiples of their length since the epoch, so every instance
// (and Redis, shared between them) agrees on which counter a request belongs to.
export function windowStart(rule: RateLimitRule, nowMs: number): number {

    const windowMs = rule.windowSeconds * 1000;
    return Math.floor(nowMs / windowMs) * windowMs;
}

export function currentWindow(rule: RateLimitRule, nowMs: number): CurrentWindow {

    const start = windowStart(rule, nowMs);
    return {
        id: `rl:${rule.policy}:${rule.subject}:${rule.windowSeconds}:${start}`,
        msUntilReset: start + rule.windowSeconds * 1000 - nowMs
    };
}

/**
 * Turns each rule's usage into a decision. A request is allowed only if every rule
 * still has room; a denied request counts against none of them, so one key hammering
 * past its own limit does not use up its family's quota for the other keys.
 * The Redis script applies the same `used < limit` test atomically before counting.
 * Plain loops: this runs on every request through the gateway.
 */
export function decide(rules: readonly RateLimitRule[], usage: readonly WindowUsage[]): RateLimitDecision {

    if (rules.length === 0 || rules.length !== usage.length) {
        throw new TypeError('decide() needs one usage per rule, and at least one rule');
    }

    let allowed = true;
    for (let i = 0; i < rules.length; ++i) {
        allowed &&= usage[i].used < rules[i].limit;
    }

    const states: RateLimitState[] = [];
    let tightest: RateLimitState | undefined;
    let retryAfterSeconds = 0;
    for (let i = 0; i < rules.length; ++i) {
        const rule = rules[i];
        const count = usage[i].used + (allowed ? 1 : 0);
        const state = { rule, count, remaining: Math.max(0, rule.limit - count), resetSeconds: Math.max(1, Math.ceil(usage[i].ttlMs / 1000)) };
        states.push(state);

        // On a tie, the longer wait is the more useful one to report.
        if (!tightest || state.remaining < tightest.remaining || (state.remaining === tightest.remaining && state.resetSeconds > tightest.resetSeconds)) {
            tightest = state;
        }

        if (usage[i].used >= rule.limit) {
            retryAfterSeconds = Math.max(retryAfterSeconds, state.resetSeconds);
        }
    }

    return allowed ? { allowed, rules, states, tightest: tightest! } : { allowed, rules, states, tightest: tightest!, retryAfterSeconds };
}
