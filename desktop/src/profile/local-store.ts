import Fs from 'fs';

import type { Conflict, Conversation, Message } from '../sdk/types';

import { BlobFiles } from './blobs';
import { CacheTables } from './cache-tables';
import { EnqueueInput, Outbox, OutboxItem } from './outbox';
import { SealedRecords } from './sealed-records';
import { SqliteDatabase } from './sqlite-database';
import { openStoreDatabase, removeDatabaseFiles } from './store-database';

export type { EnqueueInput, OutboxFile, OutboxItem } from './outbox';

/* The profile's local store: the cache of the service's records, the client's state, and the outbox. Every content sealed. */

export class LocalStore {

    private constructor(
        private readonly profileDir: string,
        private readonly db: SqliteDatabase,
        private readonly cache: CacheTables,
        private readonly outbox: Outbox) { }

    /** Creates or migrates the store, and removes the blobs a crashed process left behind. */
    static async open(profileDir: string, key: Buffer): Promise<LocalStore> {

        const db = await openStoreDatabase(profileDir, key);
        const records = new SealedRecords(key);
        const cache = new CacheTables(db, records);
        const outbox = new Outbox(db, records, cache, await BlobFiles.open(profileDir, records));
        await outbox.sweepBlobs();
        return new LocalStore(profileDir, db, cache, outbox);
    }

    async close(): Promise<void> {

        await this.db.close();
    }

    getState<T>(name: string): Promise<T | undefined> {

        return this.cache.getState<T>(name);
    }

    setState(name: string, value: unknown): Promise<void> {

        return this.cache.setState(name, value);
    }

    deleteState(name: string): Promise<void> {

        return this.cache.deleteState(name);
    }

    putConversations(list: Conversation[]): Promise<void> {

        return this.cache.putConversations(list);
    }

    /** Removes the conversation and its messages. */
    removeConversation(id: string): Promise<void> {

        return this.cache.removeConversation(id);
    }

    conversations(): Promise<Conversation[]> {

        return this.cache.conversations();
    }

    conversation(id: string): Promise<Conversation | undefined> {

        return this.cache.conversation(id);
    }

    putMessages(list: Message[]): Promise<void> {

        return this.cache.putMessages(list);
    }

    messages(conversationId: string, options?: { limit?: number }): Promise<Message[]> {

        return this.cache.messages(conversationId, options);
    }

    putConflicts(list: Conflict[]): Promise<void> {

        return this.cache.putConflicts(list);
    }

    conflicts(options?: { status?: 'open' | 'all' }): Promise<Conflict[]> {

        return this.cache.conflicts(options);
    }

    conflict(id: string): Promise<Conflict | undefined> {

        return this.cache.conflict(id);
    }

    /** Reads and seals the files into blobs, then inserts the item in one transaction: durable when this resolves. */
    enqueue(input: EnqueueInput): Promise<OutboxItem> {

        return this.outbox.enqueue(input);
    }

    outboxItems(conversationId?: string): Promise<OutboxItem[]> {

        return this.outbox.items(conversationId);
    }

    updateOutboxItem(seq: number, patch: Partial<Pick<OutboxItem, 'state' | 'files' | 'attempts' | 'lastError'>>): Promise<void> {

        return this.outbox.update(seq, patch);
    }

    completeOutboxItem(seq: number, result: { message?: Message; conflict?: Conflict }): Promise<void> {

        return this.outbox.complete(seq, result);
    }

    /** Removes an item its user gave up (and its files); the item as it was. */
    discardOutboxItem(seq: number): Promise<OutboxItem> {

        return this.outbox.discard(seq);
    }

    /** The bytes of an outbox file, opened. */
    readBlob(blobId: string): Promise<Buffer> {

        return this.outbox.blobs.read(blobId);
    }

    /** Closes the store and deletes its database and blobs. */
    async wipe(): Promise<void> {

        await this.db.close();
        await removeDatabaseFiles(this.profileDir);
        await Fs.promises.rm(this.outbox.blobs.dir, { recursive: true, force: true });
    }
}
