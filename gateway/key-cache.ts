import type { Principal } from './principal';

interface Entry {
    principal: Principal;
    epoch: string;
    expiresAt: number;
    /** When the entry last moved to the most recently used end. */
    touchedAt: number;
}

/**
 * The safety net under the auth epoch: a change whose epoch move Redis missed is seen at the latest after
 * this long (the longest the `api-key` scheme's key_cache.max_age_minutes may be).
 */
export const keyCacheMaxAgeMinutes = 10;

// Moving an entry to the recent end costs a delete and an insert; once a second per key is recent enough for eviction.
const touchIntervalMs = 1000;

/**
 * Verified keys, so a known key costs no database round-trip. An entry
 * is only good under the auth epoch it was loaded in; the age limit is a safety net.
 * Least recently used entries go first when full (to the second).
 */
export class KeyCache {
    private readonly entries = new Map<string, Entry>();

    /** @param now the clock in ms; tests inject one. */
    constructor(private readonly maxEntries: number, private readonly maxAgeMilliseconds: number, private readonly now: () => number = Date.now) {}

    get(token: string, epoch: string): Principal | undefined {

        const entry = this.entries.get(token);
        if (!entry) {
            return undefined;
        }

        const now = this.now();
        if (entry.epoch !== epoch || entry.expiresAt < now) {
            this.entries.delete(token);
            return undefined;
        }

        if (now - entry.touchedAt >= touchIntervalMs) {
            entry.touchedAt = now;
            this.entries.delete(token);
            this.entries.set(token, entry);          // most recently used last
        }

        return entry.principal;
    }

    set(token: string, epoch: string, principal: Principal): void {

        const now = this.now();
        this.entries.delete(token);
        this.entries.set(token, { principal, epoch, expiresAt: now + this.maxAgeMilliseconds, touchedAt: now });
        if (this.entries.size > this.maxEntries) {
            this.entries.delete(this.entries.keys().next().value!);
        }
    }
}
