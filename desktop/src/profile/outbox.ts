import Fs from 'fs';
import Path from 'path';

import type { Conflict, Message } from '../sdk/types';

import { BlobFiles } from './blobs';
import { CacheTables } from './cache-tables';
import { SealedRecords } from './sealed-records';
import { SqlConnection, SqliteDatabase } from './sqlite-database';

/* What the user sent and the service has not answered yet, in the order it was sent, with its files sealed into blobs. */

export interface OutboxFile {
    blobId: string;
    name: string;
    size: number;
    type?: string;
    uploadUrl?: string;
    uploadId?: string;
}

export interface OutboxItem {
    seq: number;
    conversationId: string;
    idempotencyKey: string;
    clientTime: string;
    body?: string;
    files: OutboxFile[];
    state: 'queued' | 'uploading' | 'sending';
    attempts: number;
    lastError?: { code: string; message: string };
}

export interface EnqueueInput {
    conversationId: string;
    body?: string;
    files: Array<{ path: string; name?: string; type?: string }>;
    clientTime: string;
    idempotencyKey: string;
}

type SealedPart = Pick<OutboxItem, 'clientTime' | 'body' | 'files' | 'attempts' | 'lastError'>;

interface OutboxRow {
    seq: number;
    idempotency_key: string;
    conversation_id: string;
    state: OutboxItem['state'];
    sealed: Buffer;
}

export class Outbox {

    constructor(private readonly db: SqliteDatabase, private readonly records: SealedRecords, private readonly cache: CacheTables, readonly blobs: BlobFiles) { }

    /** Reads every file first (refusing one that cannot be read), seals each into a blob, then inserts the item: durable when this resolves. */
    async enqueue(input: EnqueueInput): Promise<OutboxItem> {

        if (!input.body && !input.files.length) {
            throw new Error('An outbox item needs a body or a file');
        }

        const contents = [];
        for (const file of input.files) {
            contents.push({ ...file, bytes: await readWholeFile(file.path) });
        }

        const files: OutboxFile[] = [];
        try {
            for (const { path, name, type, bytes } of contents) {
                files.push({ blobId: await this.blobs.write(bytes), name: name ?? Path.basename(path), size: bytes.length, ...(type ? { type } : {}) });
            }

            const sealed: SealedPart = { clientTime: input.clientTime, body: input.body, files, attempts: 0 };
            const { lastID } = await this.db.transaction((connection) => connection.run(
                "INSERT INTO outbox (idempotency_key, conversation_id, state, blob_ids, sealed) VALUES (?, ?, 'queued', ?, ?)",
                [input.idempotencyKey, input.conversationId, blobIds(files), this.records.seal('outbox', input.idempotencyKey, sealed)]));

            return { seq: lastID, conversationId: input.conversationId, idempotencyKey: input.idempotencyKey, state: 'queued', ...sealed };
        }
        catch (error) {
            await this.blobs.remove(files.map((file) => file.blobId));
            throw error;
        }
    }

    /** In order (seq), of one conversation or all. */
    async items(conversationId?: string): Promise<OutboxItem[]> {

        const rows = await this.db.exclusive((connection) => (conversationId === undefined ?
            connection.all<OutboxRow>('SELECT * FROM outbox ORDER BY seq') :
            connection.all<OutboxRow>('SELECT * FROM outbox WHERE conversation_id = ? ORDER BY seq', [conversationId])));

        return rows.map((row) => this.item(row));
    }

    async update(seq: number, patch: Partial<Pick<OutboxItem, 'state' | 'files' | 'attempts' | 'lastError'>>): Promise<void> {

        await this.db.transaction(async (connection) => {

            const { state, ...sealedPatch } = patch;
            const item = { ...this.item(await this.row(connection, seq)), ...sealedPatch, ...(state ? { state } : {}) };
            const sealed: SealedPart = { clientTime: item.clientTime, body: item.body, files: item.files, attempts: item.attempts, lastError: item.lastError };
            await connection.run('UPDATE outbox SET state = ?, blob_ids = ?, sealed = ? WHERE seq = ?',
                [item.state, blobIds(item.files), this.records.seal('outbox', item.idempotencyKey, sealed), seq]);
        });
    }

    /** One transaction: the item gone, the message it became (or the conflict it met) cached; then its blobs removed. */
    async complete(seq: number, result: { message?: Message; conflict?: Conflict }): Promise<void> {

        await this.take(seq, async (connection) => {

            if (result.message) {
                await this.cache.putMessage(connection, result.message);
            }

            if (result.conflict) {
                await this.cache.putConflict(connection, result.conflict);
            }
        });
    }

    /** The item given up by its user before it was sent: gone, and its blobs removed. */
    discard(seq: number): Promise<OutboxItem> {

        return this.take(seq, async () => undefined);
    }

    /** One transaction: the item deleted and `andThen` done; then its blobs removed. */
    private async take(seq: number, andThen: (connection: SqlConnection) => Promise<void>): Promise<OutboxItem> {

        const item = await this.db.transaction(async (connection) => {

            const taken = this.item(await this.row(connection, seq));
            await connection.run('DELETE FROM outbox WHERE seq = ?', [seq]);
            await andThen(connection);
            return taken;
        });

        await this.blobs.remove(item.files.map((file) => file.blobId));
        return item;
    }

    /** Removes the blobs left by a process that crashed after writing them and before its item committed. */
    async sweepBlobs(): Promise<string[]> {

        const rows = await this.db.exclusive((connection) => connection.all<{ blob_ids: string }>('SELECT blob_ids FROM outbox'));
        return await this.blobs.sweep(new Set(rows.flatMap((row) => row.blob_ids.split(' ').filter(Boolean))));
    }

    private async row(connection: SqlConnection, seq: number): Promise<OutboxRow> {

        const row = await connection.get<OutboxRow>('SELECT * FROM outbox WHERE seq = ?', [seq]);
        if (!row) {
            throw new Error(`No outbox item ${seq}`);
        }

        return row;
    }

    private item(row: OutboxRow): OutboxItem {

        const sealed = this.records.open<SealedPart>('outbox', row.idempotency_key, row.sealed);
        return { seq: row.seq, conversationId: row.conversation_id, idempotencyKey: row.idempotency_key, state: row.state, ...sealed };
    }
}


function blobIds(files: OutboxFile[]): string {

    return files.map((file) => file.blobId).join(' ');
}


async function readWholeFile(path: string): Promise<Buffer> {

    let stat: Fs.Stats;
    try {
        stat = await Fs.promises.stat(path);
    }
    catch (error) {
        throw new Error(`Cannot attach ${path}: ${describe(error as NodeJS.ErrnoException)}`);
    }

    if (!stat.isFile()) {
        throw new Error(`Cannot attach ${path}: ${stat.isDirectory() ? 'it is a directory' : 'it is not a regular file'}`);
    }

    try {
        return await Fs.promises.readFile(path);
    }
    catch (error) {
        throw new Error(`Cannot attach ${path}: ${describe(error as NodeJS.ErrnoException)}`);
    }
}


function describe(error: NodeJS.ErrnoException): string {

    switch (error.code) {
        case 'ENOENT': return 'no such file';
        case 'EACCES':
        case 'EPERM': return 'permission denied';
        default: return error.message;
    }
}
