import Crypto from 'crypto';

import { Client } from 'pg';

const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchDatabase {
    url: string;
    /** Drops the database, whoever is still connected to it. */
    drop(): Promise<void>;
}

/** A new database of the benchmark's own, or undefined when PostgreSQL does not answer. */
export async function scratchPostgres(): Promise<ScratchDatabase | undefined> {

    const admin = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
    try {
        await admin.connect();
    }
    catch {
        return undefined;
    }

    const name = `fr_bench_${Crypto.randomBytes(4).toString('hex')}`;
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
export async function withScratchPostgres<T>(work: (databaseUrl: string) => Promise<T>): Promise<T | undefined> {

    const database = await scratchPostgres();
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
