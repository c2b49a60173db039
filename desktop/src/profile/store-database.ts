import Fs from 'fs';
import Path from 'path';

import { openRecord, sealRecord } from './cipher';
import { ensurePrivateDir, ensurePrivateFile, narrowMode, privateFileMode } from './private-files';
import { SqlConnection, SqliteDatabase } from './sqlite-database';

/*
 * The profile's SQLite file: created 0600 before SQLite opens it, WAL (the CLI and the window of one profile read and
 * write it at the same time), synchronous FULL (a committed transaction survives a power cut), migrated by user_version.
 * Every content column holds a sealed record; ids, the conversation id, ordering keys and states are in clear.
 */

export const databaseFile = 'store.sqlite';
const busyTimeoutMs = 10_000;
const keyCheck = { table: 'state', name: '.key-check', text: 'family-records-desktop' };

const migrations = [
    `
    CREATE TABLE state (name TEXT PRIMARY KEY, sealed BLOB NOT NULL);
    CREATE TABLE conversations (id TEXT PRIMARY KEY, sealed BLOB NOT NULL);
    CREATE TABLE messages (id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, created_at TEXT NOT NULL, sealed BLOB NOT NULL);
    CREATE INDEX messages_by_conversation ON messages (conversation_id, created_at, id);
    CREATE TABLE conflicts (id TEXT PRIMARY KEY, status TEXT NOT NULL, created_at TEXT NOT NULL, sealed BLOB NOT NULL);
    CREATE TABLE outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        idempotency_key TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL,
        state TEXT NOT NULL,
        blob_ids TEXT NOT NULL,
        sealed BLOB NOT NULL
    );
    CREATE INDEX outbox_by_conversation ON outbox (conversation_id, seq);
    `
];


export async function openStoreDatabase(profileDir: string, key: Buffer): Promise<SqliteDatabase> {

    await ensurePrivateDir(profileDir);
    const path = Path.join(profileDir, databaseFile);
    await ensurePrivateFile(path);
    const db = await SqliteDatabase.open(path, busyTimeoutMs);
    try {
        await db.exclusive(async (connection) => {

            await connection.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
            await connection.exec('PRAGMA journal_mode = WAL');
            await connection.exec('PRAGMA synchronous = FULL');
        });

        await db.transaction(async (connection) => {

            await migrate(connection);
            await checkKey(connection, key);
        });

        await narrowDatabaseFiles(path);
        return db;
    }
    catch (error) {
        await db.close();
        throw error;
    }
}


/** The write-ahead log and shared memory files SQLite created next to the database: 0600 like it. */
export async function narrowDatabaseFiles(path: string): Promise<void> {

    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        await narrowMode(file, privateFileMode).catch((error: NodeJS.ErrnoException) => {

            if (error.code !== 'ENOENT') {
                throw error;
            }
        });
    }
}


export async function removeDatabaseFiles(profileDir: string): Promise<void> {

    const path = Path.join(profileDir, databaseFile);
    for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
        await Fs.promises.rm(file, { force: true });
    }
}


async function migrate(connection: SqlConnection): Promise<void> {

    const { user_version: version } = (await connection.get<{ user_version: number }>('PRAGMA user_version'))!;
    if (version > migrations.length) {
        throw new Error(`The profile's store was written by a newer version of the desktop client (schema ${version}); update the client`);
    }

    for (let next = version; next < migrations.length; ++next) {
        await connection.exec(migrations[next]);
        await connection.exec(`PRAGMA user_version = ${next + 1}`);
    }
}


/** A record sealed when the store was created: a wrong key is told at open, not as the first record that fails to open. */
async function checkKey(connection: SqlConnection, key: Buffer): Promise<void> {

    const aad = `${keyCheck.table}:${keyCheck.name}`;
    const row = await connection.get<{ sealed: Buffer }>('SELECT sealed FROM state WHERE name = ?', [keyCheck.name]);
    if (!row) {
        await connection.run('INSERT INTO state (name, sealed) VALUES (?, ?)', [keyCheck.name, sealRecord(key, aad, keyCheck.text)]);
        return;
    }

    try {
        openRecord(key, aad, row.sealed);
    }
    catch {
        throw new Error('The cache key of this profile does not open its local store: the key store lost or changed the key; disconnect and connect again');
    }
}
