import Fs from 'fs/promises';

import Lockfile from 'proper-lockfile';

import { refreshTokens, type TokenSet } from './device-sign-in';
import type { ServerMetadata } from './discovery';
import { OAuthError, SignedOutError } from './errors';

/** Where a profile keeps its tokens, shared by every process of that profile. */
export interface TokenStorage {
    read(): Promise<TokenSet | undefined>;
    write(tokens: TokenSet): Promise<void>;
    /** A path proper-lockfile locks (it creates `<lockFile>.lock`); created empty (0600) when missing. */
    lockFile: string;
}

/** An access token with less than this left is refreshed before use: a request must not carry one that expires on the way. */
const minValidityMs = 60_000;

/** A lock left by a process that died is taken over after this long. */
const staleLockMs = 10_000;

const fresh = (tokens: TokenSet) => tokens.expires_at - Date.now() > minValidityMs;

/**
 * The access token of one profile. Refreshing spends the refresh token, so two processes refreshing with the
 * same one would look like a stolen copy: a refresh takes the profile's lock file, reads the storage again (another
 * process may have refreshed meanwhile), and only then refreshes and keeps the new pair before unlocking.
 */
export class Session {

    private queue: Promise<unknown> = Promise.resolve();

    constructor(readonly metadata: ServerMetadata, readonly storage: TokenStorage) {

    }

    /** The stored access token while it has more than a minute left; else a fresh one. SignedOutError when the grant is gone. */
    async accessToken(): Promise<string> {

        const stored = await this.storage.read();
        if (!stored) {
            throw new SignedOutError();
        }

        return fresh(stored) ? stored.access_token : this.refreshUnless(fresh);
    }

    /** After the service refused `rejected` (401): the token another process refreshed meanwhile, or a new one. */
    refreshAfterRejection(rejected: string): Promise<string> {

        return this.refreshUnless((stored) => stored.access_token !== rejected && fresh(stored));
    }

    /** Under the lock (one refresh at a time in this process too): the stored token if `usable`, else a refreshed one. */
    private refreshUnless(usable: (stored: TokenSet) => boolean): Promise<string> {

        const turn = this.queue.then(() => this.lockedRefresh(usable));
        this.queue = turn.catch(() => undefined);
        return turn;
    }

    private async lockedRefresh(usable: (stored: TokenSet) => boolean): Promise<string> {

        const release = await this.lock();
        try {
            const stored = await this.storage.read();
            if (!stored) {
                throw new SignedOutError();
            }

            if (usable(stored)) {
                return stored.access_token;
            }

            const tokens = await this.refreshed(stored.refresh_token);
            await this.storage.write(tokens);
            return tokens.access_token;
        }
        finally {
            await release().catch(() => undefined);
        }
    }

    private async refreshed(refreshToken: string): Promise<TokenSet> {

        try {
            return await refreshTokens(this.metadata, refreshToken);
        }
        catch (error) {
            if (error instanceof OAuthError && error.error === 'invalid_grant') {
                throw new SignedOutError(`This device was disconnected (${error.description ?? 'its grant is gone'}): connect it again.`);
            }

            throw error;
        }
    }

    private async lock(): Promise<() => Promise<void>> {

        const handle = await Fs.open(this.storage.lockFile, 'a', 0o600);
        await handle.close();
        return Lockfile.lock(this.storage.lockFile, {
            stale: staleLockMs,
            retries: { retries: 40, factor: 1.3, minTimeout: 10, maxTimeout: 500 },
            // A lock lost to a stall past `stale`: the refresh it guarded is done or failed anyway; the storage says which.
            onCompromised: () => undefined
        });
    }
}
