import type { ApiKeyCredentials } from './credentials';

interface Entry {
    credentials: ApiKeyCredentials;
    epoch: string;
    expiresAt: number;
}

/**
 * Verified keys, so a known key costs no database round-trip. An entry
 * is only good under the auth epoch it was loaded in; the age limit is a safety net.
 * Least recently used entries go first when full.
 */
export class KeyCache {
    private readonly entries = new Map<string, Entry>();

    constructor(private readonly maxEntries = 10_000, private readonly maxAgeMilliseconds = 10 * 60_000) {}

    get(token: string, epoch: string): ApiKeyCredentials | undefined {

        const entry = this.entries.get(token);
        if (!entry) {
            return undefined;
        }

        this.entries.delete(token);
        if (entry.epoch !== epoch || entry.expiresAt < Date.now()) {
            return undefined;
        }

        this.entries.set(token, entry);          // most recently used last
        return entry.credentials;
    }

    set(token: string, epoch: string, credentials: ApiKeyCredentials): void {

        this.entries.delete(token);
        this.entries.set(token, { credentials, epoch, expiresAt: Date.now() + this.maxAgeMilliseconds });
        if (this.entries.size > this.maxEntries) {
            this.entries.delete(this.entries.keys().next().value!);
        }
    }
}
