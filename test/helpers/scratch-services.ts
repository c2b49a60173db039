/*
 * PostgreSQL and Redis on this machine, for the test runner and the benchmarks: whether
 * they answer, and scratch databases that are dropped afterwards. Imports no project code.
 */
import Crypto from 'crypto';

import { Client } from 'pg';
import { createClient } from 'redis';

export interface ScratchDatabase {
    url: string;
    /** Drops the database, whoever is still connected to it. */
    drop(): Promise<void>;
}

/** Whether Redis at `url` accepts a connection within a second. */
export async function redisAnswers(url: string): Promise<boolean> {

    const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
    client.on('error', () => undefined);
    try {
        await client.connect();
        await client.quit();
        return true;
    }
    catch {
        return false;
    }
}

/** Deletes every key under `prefix` (a test run's own), so runs leave nothing behind in Redis. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {

    const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
    client.on('error', () => undefined);
    await client.connect();
    try {
        for await (const key of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
            await client.del(key);
        }
    }
    finally {
        await client.quit();
    }
}

/**
 * A new database named `<prefix>_<random>` next to the one of `adminUrl`, or undefined when
 * PostgreSQL does not answer within two seconds.
 */
export async function scratchDatabase(adminUrl: string, prefix: string): Promise<ScratchDatabase | undefined> {

    const admin = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
    try {
        await admin.connect();
    }
    catch {
        return undefined;
    }

    const name = `${prefix}_${Crypto.randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
        url: url.toString(),
        async drop() {

            await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            await admin.end();
        }
    };
}

/** Runs `work` on a scratch database, dropped afterwards; undefined without running it when PostgreSQL does not answer. */
export async function withScratchDatabase<T>(adminUrl: string, prefix: string, work: (databaseUrl: string) => Promise<T>): Promise<T | undefined> {

    const database = await scratchDatabase(adminUrl, prefix);
    if (!database) {
        return undefined;
    }

    try {
        return await work(database.url);
    }
    finally {
        await database.drop();
    }
}
