import type { ProfileInfo } from '../profile/profiles';
import type { LocalStore } from '../profile/local-store';
import type { SecretStore } from '../profile/secret-store';
import type { ServerMetadata } from '../sdk/discovery';
import type { MessagingClient } from '../sdk/messaging-client';

/** What an open profile is made of: its files, its keys, the service it talks to. */
export interface ClientParts {
    profile: ProfileInfo;
    store: LocalStore;
    api: MessagingClient;
    secrets: SecretStore;
    metadata: ServerMetadata;
}

/** The parts plus what the engine's jobs report through: DesktopClient's events and its online flag. */
export interface EngineContext extends ClientParts {
    emit(event: string, ...args: unknown[]): boolean;
    setOnline(online: boolean): void;
    /** The cursors of the changes applied lately, oldest first: a change that sync and the stream both bring is applied once. */
    readonly recentCursors: Set<string>;
}

/** The names of the engine's entries in the store's state. */
export const stateNames = {
    server: 'server-metadata',
    syncCursor: 'sync-cursor',
    lastSyncAt: 'last-sync-at'
} as const;
