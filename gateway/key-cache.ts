import type { ApiKeyCredentials } from './credentials';

interface Entry {
    credentials: ApiKeyCredentials;
    epoch: string;
    expiresAt: number;
}

/**
 * Verified keys by hash, so a known key costs no database round-trip. An entry
 * is only good under the auth epoch it was loaded in; the age limit is a safety net.
 * Least recently used entries go first when full.
 */
export class KeyCache {
    private readonly entries = new Map<string, Entry>();

    constructor(private readonly maxEntries = 10_000, private readonly maxAgeMilliseconds = 10 * 60_000) {}

    get(hash: string, epoch: string): ApiKeyCredentials | undefined {

        const entry = this.entries.get(hash);
        if (!entry) {
            return undefined;
        }

        this.entries.delete(hash);
        if (entry.epoch !== epoch || entry.expiresAt < Date.now()) {
            return undefined;
        }

        this.entries.set(hash, entry);          // most recently used last
        return entry.credentials;
    }

    set(hash: string, epoch: string, credentials: ApiKeyCredentials): void {

        this.entries.delete(hash);
        this.entries.set(hash, { credentials, epoch, expiresAt: Date.now() + this.maxAgeMilliseconds });
        if (this.entries.size > this.maxEntries) {
            this.entries.delete(this.entries.keys().next().value!);
        }
    }
}
