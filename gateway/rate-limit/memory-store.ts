import { decide, windowStart, type WindowUsage } from './decide';
import type { RateLimitDecision, RateLimitRule, RateLimitStore } from './types';

/** A rule's count in its current window; a new window starts it again from nothing. */
interface Counter {
    windowStart: number;
    count: number;
    expiresAt: number;
}

const sweepIntervalMs = 1000;

/**
 * Rate-limit counters in this process: the embedded default, for a single instance.
 * A hit runs synchronously from reading to counting, so it is atomic within the process.
 */
export class MemoryRateLimitStore implements RateLimitStore {

    /**
     * By series: policy, subject and window length. The length is part of it: when a policy edit changes a window's
     * length, windows of both lengths can start at the same instant (an hour's first minute, for 60 s and 3,600 s),
     * and must not share a count.
     */
    private readonly counters = new Map<string, Counter>();
    // A rule's series, named once per rule: the gateway reuses a key's rules from request to request.
    private readonly seriesIds = new WeakMap<RateLimitRule, string>();
    private nextSweepAt = 0;
    private closed = false;

    /** @param now the clock in ms; tests inject one to cross windows without waiting. */
    constructor(private readonly now: () => number = Date.now) {}

    /** Counters currently held, expired ones included until the next sweep. */
    get size(): number {

        return this.counters.size;
    }

    hit(rules: readonly RateLimitRule[]): RateLimitDecision {

        if (this.closed) {
            throw new Error('MemoryRateLimitStore is closed');
        }

        const now = this.now();
        this.sweepExpired(now);

        // Plain loops: this runs on every request through the gateway.
        const counters: (Counter | undefined)[] = [];
        const usage: WindowUsage[] = [];
        for (const rule of rules) {
            const start = windowStart(rule, now);
            let counter = this.counters.get(this.seriesOf(rule));
            if (counter && counter.windowStart !== start) {
                counter = undefined;            // the last window's: this one has counted nothing yet
            }

            counters.push(counter);
            usage.push({ used: counter?.count ?? 0, ttlMs: start + rule.windowSeconds * 1000 - now });
        }

        const decision = decide(rules, usage);
        if (decision.allowed) {
            for (let i = 0; i < rules.length; ++i) {
                const counter = counters[i];
                if (counter) {
                    ++counter.count;
                }
                else {
                    this.counters.set(this.seriesOf(rules[i]), { windowStart: windowStart(rules[i], now), count: 1, expiresAt: now + usage[i].ttlMs });
                }
            }
        }

        return decision;
    }

    async close(): Promise<void> {

        this.closed = true;
        this.counters.clear();
    }

    private seriesOf(rule: RateLimitRule): string {

        let id = this.seriesIds.get(rule);
        if (id === undefined) {
            id = `${rule.policy}:${rule.subject}:${rule.windowSeconds}`;
            this.seriesIds.set(rule, id);
        }

        return id;
    }

    // A counter whose window has passed is never counted on again; sweeping them at most once
    // a second keeps memory bounded by the live windows without a timer to manage.
    private sweepExpired(now: number): void {

        if (now < this.nextSweepAt) {
            return;
        }

        this.nextSweepAt = now + sweepIntervalMs;
        for (const [id, counter] of this.counters) {
            if (counter.expiresAt <= now) {
                this.counters.delete(id);
            }
        }
    }
}
