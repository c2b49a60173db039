import { scratchDatabase, withScratchDatabase, type ScratchDatabase } from '../../test/helpers/scratch-services';

const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A new database of the benchmark's own, or undefined when PostgreSQL does not answer. */
export function scratchPostgres(): Promise<ScratchDatabase | undefined> {

    return scratchDatabase(adminUrl, 'fr_bench');
}

/** Runs `work` on a scratch database, dropped afterwards; undefined without running it when PostgreSQL does not answer. */
export function withScratchPostgres<T>(work: (databaseUrl: string) => Promise<T>): Promise<T | undefined> {

    return withScratchDatabase(adminUrl, 'fr_bench', work);
}
