import { currentWindow, decide, type CurrentWindow, type WindowUsage } from './decide';
import type { RateLimitDecision, RateLimitRule, RateLimitStore } from './types';

interface Counter {
    count: number;
    expiresAt: number;
}

const sweepIntervalMs = 1000;

/**
 * Rate-limit counters in this process: the embedded default, for a single instance.
 * A hit runs synchronously from reading to counting, so it is atomic within the process.
 */
export class MemoryRateLimitStore implements RateLimitStore {

    private readonly counters = new Map<string, Counter>();
    private nextSweepAt = 0;
    private closed = false;

    /** @param now the clock in ms; tests inject one to cross windows without waiting. */
    constructor(private readonly now: () => number = Date.now) {}

    /** Counters currently held, expired ones included until the next sweep. */
    get size(): number {

        return this.counters.size;
    }

    hit(rules: RateLimitRule[]): RateLimitDecision {

        if (this.closed) {
            throw new Error('MemoryRateLimitStore is closed');
        }

        const now = this.now();
        this.sweepExpired(now);

        // Plain loops: this runs on every request through the gateway.
        const windows: CurrentWindow[] = [];
        const counters: (Counter | undefined)[] = [];
        const usage: WindowUsage[] = [];
        for (const rule of rules) {
            const window = currentWindow(rule, now);
            const counter = this.counters.get(window.id);
            windows.push(window);
            counters.push(counter);
            usage.push({ used: counter?.count ?? 0, ttlMs: window.msUntilReset });
        }

        const decision = decide(rules, usage);
        if (decision.allowed) {
            for (let i = 0; i < windows.length; ++i) {
                const counter = counters[i];
                if (counter) {
                    ++counter.count;
                }
                else {
                    this.counters.set(windows[i].id, { count: 1, expiresAt: now + windows[i].msUntilReset });
                }
            }
        }

        return decision;
    }

    async close(): Promise<void> {

        this.closed = true;
        this.counters.clear();
    }

    // Counter ids name their window, so a past window's counter is never read again;
    // sweeping them at most once a second keeps memory bounded by the live windows
    // without a timer to manage.
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
