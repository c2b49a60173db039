import { EventEmitter } from 'events';

import type { LocalStore, OutboxItem } from '../profile/local-store';
import type { ProfileInfo } from '../profile/profiles';
import type { SecretStore } from '../profile/secret-store';
import type { ServerMetadata } from '../sdk/discovery';
import { OfflineError } from '../sdk/errors';
import { newIdempotencyKey } from '../sdk/idempotency-key';
import type { MessagingClient } from '../sdk/messaging-client';
import type { Conflict, Conversation } from '../sdk/types';
import { resolveConflict, type ConflictAction } from './conflicts';
import { connectParts, type ConnectOptions } from './connect';
import { stateNames, type ClientParts, type EngineContext } from './context';
import { disconnectProfile } from './disconnect';
import { isAccountRefusal } from './errors';
import { openParts } from './open';
import { flushOutbox, lockOutbox, type FlushResult } from './outbox-flush';
import { retryPendingRevocationsAtStart } from './pending-revocations';
import { syncChanges } from './sync';
import { watchChanges } from './watch';

export interface ClientStatus {
    profile: ProfileInfo;
    keyStore: { kind: SecretStore['kind']; description: string; warning?: string };
    online: boolean;
    outbox: number;
    openConflicts: number;
    lastSyncAt: string | null;
}

/**
 * One connected profile, what the command line and the window both drive: a cache kept up to date (sync, the
 * recovery stream), an outbox that writes first and sends when it can, conflicts to resolve, the device to disconnect.
 * Events: 'change' (a Change applied), 'outbox' (the OutboxItem[] left of a conversation), 'conflict' (Conflict),
 * 'online' (boolean, when it changes), 'upload-progress' ({ seq, name, sent, total }).
 */
export class DesktopClient extends EventEmitter implements EngineContext {

    readonly profile: ProfileInfo;
    readonly store: LocalStore;
    readonly api: MessagingClient;
    readonly secrets: SecretStore;
    readonly metadata: ServerMetadata;
    online = false;

    private flushing?: Promise<FlushResult>;
    private flushAgain = false;
    private cacheTurn: Promise<unknown> = Promise.resolve();
    readonly recentCursors = new Set<string>();

    private constructor(parts: ClientParts) {

        super();
        this.profile = parts.profile;
        this.store = parts.store;
        this.api = parts.api;
        this.secrets = parts.secrets;
        this.metadata = parts.metadata;
    }

    /** Connects this computer to an account (the device flow: `onCode` shows the code to approve) and opens its profile. */
    static async connect(serverUrl: string, options: ConnectOptions): Promise<DesktopClient> {

        await retryPendingRevocationsAtStart();
        return new DesktopClient(await connectParts(serverUrl, options));
    }

    /** Opens a connected profile, offline too; NotConnectedError when there is none. */
    static async open(options: { profile?: string } = {}): Promise<DesktopClient> {

        await retryPendingRevocationsAtStart();
        return new DesktopClient(await openParts(options.profile));
    }

    setOnline(online: boolean): void {

        if (online !== this.online) {
            this.online = online;
            this.emit('online', online);
        }
    }

    async status(): Promise<ClientStatus> {

        const { kind, description, warning } = this.secrets;
        return {
            profile: this.profile,
            keyStore: { kind, description, ...(warning ? { warning } : {}) },
            online: this.online,
            outbox: (await this.store.outboxItems()).length,
            openConflicts: (await this.store.conflicts({ status: 'open' })).length,
            lastSyncAt: await this.store.getState<string>(stateNames.lastSyncAt) ?? null
        };
    }

    sync(): Promise<{ changes: number; reset: boolean }> {

        return this.serially(() => this.reachingService(() => syncChanges(this)));
    }

    /**
     * A sync, then the outbox: what `sync` and the window's "Try again now" do. An account the service refuses (disabled,
     * suspended) still sends its outbox, which the service keeps as conflicts so that nothing is lost; then the refusal
     * is thrown.
     */
    async syncAndFlush(): Promise<{ changes: number; reset: boolean; outbox: FlushResult }> {

        let synced: { changes: number; reset: boolean };
        try {
            synced = await this.sync();
        }
        catch (error) {
            if (isAccountRefusal(error)) {
                await this.flush().catch(() => undefined);          // what failed stays on the items
            }

            throw error;
        }

        return { ...synced, outbox: await this.flush() };
    }

    /**
     * Starts a conversation and keeps it in the cache: with `with`, the direct one with that person (the one there is, if
     * any); otherwise a group of you and `memberIds`. Online only: OfflineError, and nothing is kept to start later.
     */
    async startConversation(start: { with: string } | { title: string; memberIds: string[] }): Promise<Conversation> {

        const key = newIdempotencyKey();
        const conversation = await this.reachingService(() => ('with' in start ? this.api.startDirect(start.with, key) : this.api.startGroup(start.title, start.memberIds, key)));
        await this.serially(() => this.store.putConversations([conversation]));
        return conversation;
    }

    /** Writes the message to the outbox (durable when this resolves), then sends it in the background. */
    async send(conversationId: string, input: { body?: string; files?: string[] }): Promise<OutboxItem> {

        const item = await this.store.enqueue({ conversationId, body: input.body, files: (input.files ?? []).map((path) => ({ path })),
            clientTime: new Date().toISOString(), idempotencyKey: newIdempotencyKey() });
        this.emit('outbox', await this.store.outboxItems(conversationId));
        this.flush().catch(() => undefined);        // what failed stays on the item (lastError) and in status
        return item;
    }

    /** Sends the outbox; a call while a flush runs joins it, and it goes round once more for what was queued meanwhile. */
    flush(): Promise<FlushResult> {

        if (this.flushing) {
            this.flushAgain = true;
            return this.flushing;
        }

        const run = async () => {

            const total: FlushResult = { sent: 0, conflicts: 0, waiting: 0 };
            do {
                this.flushAgain = false;
                const round = await flushOutbox(this);
                total.sent += round.sent;
                total.conflicts += round.conflicts;
                total.waiting = round.waiting;
                if (round.elsewhere) {
                    total.elsewhere = true;
                }

            }
            while (this.flushAgain);

            return total;
        };

        this.flushing = run().finally(() => {

            this.flushing = undefined;
        });
        return this.flushing;
    }

    /**
     * Gives up an outbox item that was not sent (one the service refused with an error, say): after the flush under way,
     * here or in another process of the profile, so that an item is never dropped while its request is in flight.
     */
    async discardOutboxItem(seq: number): Promise<OutboxItem> {

        await this.flushing?.catch(() => undefined);
        const release = await lockOutbox(this.profile.dir, { retries: 30, minTimeout: 100, maxTimeout: 1000 });     // another process's flush
        let item: OutboxItem;
        try {
            item = await this.store.discardOutboxItem(seq);
        }
        finally {
            await release();
        }

        this.emit('outbox', await this.store.outboxItems(item.conversationId));
        return item;
    }

    /** Follows the stream until `signal` aborts or the service ends it for good; an account refused then still sends its outbox (it becomes conflicts). */
    async watch(signal: AbortSignal): Promise<{ code: string; message: string }> {

        const ended = await watchChanges(this, signal, {
            serially: (job) => this.serially(job),
            catchUp: async () => {

                // The stream resumes from the stored cursor by itself (rechecking conflicts as it does): a sync is needed
                // only to start a cache that has none, or the two would deliver the same changes twice.
                if (await this.store.getState(stateNames.syncCursor) === undefined) {
                    await this.sync();
                }

                await this.flush();
            }
        });

        if (isAccountRefusal(ended.code)) {
            await this.flush().catch(() => undefined);      // what failed stays on the items
        }

        return ended;
    }

    resolve(conflictId: string, action: ConflictAction): Promise<Conflict> {

        return resolveConflict(this, conflictId, action);
    }

    /** Revokes the device and removes its keys and cache (and with `forget` its profile); the client is closed after. */
    async disconnect(options: { forget?: boolean } = {}): Promise<{ revoked: boolean }> {

        await this.settle();
        return disconnectProfile(this, options);
    }

    async close(): Promise<void> {

        await this.settle();
        await this.store.close();
    }

    /** Runs a call of the service, and says whether the service answered it ('online'). */
    private async reachingService<T>(call: () => Promise<T>): Promise<T> {

        try {
            const result = await call();
            this.setOnline(true);
            return result;
        }
        catch (error) {
            if (error instanceof OfflineError) {
                this.setOnline(false);
            }

            throw error;
        }
    }

    /** Runs jobs on the cache one at a time: a sync and the stream's changes never interleave. */
    private serially<T>(job: () => Promise<T>): Promise<T> {

        const turn = this.cacheTurn.then(job);
        this.cacheTurn = turn.catch(() => undefined);
        return turn;
    }

    /** Waits for the flush and the cache's jobs under way. */
    private async settle(): Promise<void> {

        await this.flushing?.catch(() => undefined);
        await this.cacheTurn;
    }
}
