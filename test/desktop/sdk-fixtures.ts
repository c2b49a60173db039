import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import { discover, MessagingClient, Session, type ServerMetadata, type TokenSet, type TokenStorage } from 'family-records-desktop';

import type { User } from '../../models/user';
import { connectedDevice } from '../helpers/devices';
import { scratchDirectory } from '../helpers/server';

/** Tokens kept in memory, with a lock file of their own: one process's storage. */
export function memoryTokenStorage(tokens?: TokenSet): TokenStorage & { tokens?: TokenSet } {

    const lockFile = Path.join(scratchDirectory(), 'tokens.lock');
    Fs.writeFileSync(lockFile, '');
    return {
        tokens,
        lockFile,
        read() {

            return Promise.resolve(this.tokens);
        },
        write(fresh) {

            this.tokens = fresh;
            return Promise.resolve();
        }
    };
}

/** The SDK's client for a device of `user` connected through the services (not the OAuth endpoints: no poll to wait). */
export async function sdkClient(server: Server, baseUrl: string, user: User, scope?: string):
    Promise<{ metadata: ServerMetadata; storage: TokenStorage & { tokens?: TokenSet }; client: MessagingClient }> {

    const answer = await connectedDevice(server, user, { scope });
    const metadata = await discover(baseUrl);
    const { access_token, refresh_token, scope: granted } = answer;
    const storage = memoryTokenStorage({ access_token, refresh_token, expires_at: Date.now() + answer.expires_in * 1000, scope: granted });
    return { metadata, storage, client: new MessagingClient(baseUrl, new Session(metadata, storage)) };
}

/** What a test records as it arrives, and a wait for the moment it holds what the test needs. */
export class Recorder<T> {

    readonly items: T[] = [];
    private waiters: Array<() => void> = [];

    push(item: T): void {

        this.items.push(item);
        const waiters = this.waiters;
        this.waiters = [];
        waiters.forEach((wake) => wake());
    }

    async until(check: (items: T[]) => boolean): Promise<T[]> {

        while (!check(this.items)) {
            await new Promise<void>((resolve) => this.waiters.push(resolve));
        }

        return this.items;
    }
}
