import Crypto from 'crypto';

import type { SitePolicy } from './policy';
import type { RateLimitRule, RateLimitStore } from '../../gateway/rate-limit/types';

/**
 * Who makes a sign-in attempt: the account (its email hashed, so the shared store holds no address),
 * the client address, and whether this browser has signed in to the account before (its device cookie).
 */
export interface SignInAttempt {
    account: string;
    ip: string;
    knownDevice: boolean;
}

/** The account a throttle counts: its email, trimmed, lower-cased and hashed. */
export function accountSubject(email: string): string {

    return Crypto.createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
}

// A rule of limit 0 admits nothing, so the store counts nothing and answers the count so far; one of no reachable
// limit always counts. The device-code throttle reads and counts the same way.
export const reading = (rule: RateLimitRule): RateLimitRule => ({ ...rule, limit: 0 });
export const counting = (rule: RateLimitRule): RateLimitRule => ({ ...rule, limit: Number.MAX_SAFE_INTEGER });

/**
 * The failures an attempt counts against: its account and address together (which the delays follow), its
 * address, and, from a browser the account has not signed in from, its account (a known browser is spared that
 * limit: anyone can make an account's failures, and they must not lock its owner out).
 */
function failureRules(policy: SitePolicy, attempt: SignInAttempt): RateLimitRule[] {

    const { per_account_and_address: pair, per_account: account, per_ip: ip } = policy.sign_in_throttle;
    return [
        { policy: 'sign-in-pair', subject: `${attempt.account}:${attempt.ip}`, limit: pair.free_failures, windowSeconds: pair.window_seconds },
        { policy: 'sign-in-ip', subject: attempt.ip, limit: ip.limit, windowSeconds: ip.window_seconds },
        ...(attempt.knownDevice ? [] : [{ policy: 'sign-in-account', subject: attempt.account, limit: account.limit, windowSeconds: account.window_seconds }])
    ];
}

/**
 * The pause that follows the pair's `failures`-th failure, once past the free ones: twice as long after each, from
 * the first delay up to the longest. A window of its own length, clock-aligned like every rate-limit window, used up
 * by the failure: the next attempt waits for the window's end.
 */
function pauseRule(policy: SitePolicy, attempt: SignInAttempt, failures: number): RateLimitRule | undefined {

    const pair = policy.sign_in_throttle.per_account_and_address;
    const beyond = failures - pair.free_failures;
    if (beyond < 0) {
        return undefined;
    }

    const seconds = Math.min(pair.first_delay_seconds * 2 ** Math.min(beyond, 30), pair.max_delay_seconds);
    return { policy: 'sign-in-pause', subject: `${attempt.account}:${attempt.ip}`, limit: 1, windowSeconds: seconds };
}

/** Whether `attempt` may be made now; counts nothing. */
export async function mayAttempt(store: RateLimitStore, policy: SitePolicy, attempt: SignInAttempt): Promise<boolean> {

    const rules = failureRules(policy, attempt);
    const { states } = await store.hit(rules.map(reading));
    // The pair's own limit is where its delays start, not a lockout.
    if (states.some((state, i) => i > 0 && state.count >= rules[i].limit)) {
        return false;
    }

    const pause = pauseRule(policy, attempt, states[0].count);
    return !pause || (await store.hit([reading(pause)])).states[0].count === 0;
}

/** Counts a failed attempt against each of its rules, and starts the pause it earns. */
export async function countFailure(store: RateLimitStore, policy: SitePolicy, attempt: SignInAttempt): Promise<void> {

    const { states } = await store.hit(failureRules(policy, attempt).map(counting));
    const pause = pauseRule(policy, attempt, states[0].count);
    if (pause) {
        await store.hit([counting(pause)]);
    }
}
