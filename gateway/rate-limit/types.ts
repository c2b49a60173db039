/** One limit a request counts against, e.g. 600 requests a minute for one API key. */
export interface RateLimitRule {
    /** Which policy this is, e.g. 'key' or 'family'; named in the RateLimit headers. */
    policy: string;
    /** Whom it counts, e.g. the key id or the family long id. */
    subject: string;
    /** Requests admitted per window. */
    limit: number;
    /** Length of the fixed, clock-aligned window. */
    windowSeconds: number;
}

/** Where one rule stands after a request. */
export interface RateLimitState {
    rule: RateLimitRule;
    /** Requests admitted in the current window, this one included when it was allowed. */
    count: number;
    remaining: number;
    /** Whole seconds until the window resets, >= 1. */
    resetSeconds: number;
}

export interface RateLimitDecision {
    allowed: boolean;
    /** The rules decided on, as given. */
    rules: readonly RateLimitRule[];
    /** One state per rule, in the order the rules were given. */
    states: RateLimitState[];
    /** The state with the fewest remaining: the one to report. */
    tightest: RateLimitState;
    /** Set when not allowed: the longest reset among the exceeded rules. */
    retryAfterSeconds?: number;
}

export interface RateLimitStore {
    /**
     * Checks a request against every rule at once; counts it against all of them only if all allow it.
     * Synchronous where the counters are in this process.
     */
    hit(rules: readonly RateLimitRule[]): RateLimitDecision | Promise<RateLimitDecision>;
    close(): Promise<void>;
}
