import Crypto from 'crypto';

import { redisAnswers } from '../../test/helpers/scratch-services';
import { scratchPostgres } from './postgres';
import { percentile, printTable, printTargets } from './report';

/** What a fan-out benchmark (sse-fanout, messaging-fanout) measured of one scenario. */
export interface FanOutLatencies {
    /** Milliseconds from commit to arrival, one per change and stream. */
    deliveries: number[];
    /** Milliseconds from commit to arrival on the last stream, one per change. */
    everyStream: number[];
    /** Arrivals that never came: must be 0. */
    missing: number;
}

export interface FanOutResult extends FanOutLatencies {
    scenario: string;
    openSeconds: number;
}

/** The latencies of the changes committed at `committedAt` (by event id), from the clients' arrivals. */
export function fanOutLatencies(committedAt: ReadonlyMap<string, number>, arrivals: Record<string, number[]>, streamCount: number): FanOutLatencies {

    const result: FanOutLatencies = { deliveries: [], everyStream: [], missing: 0 };
    for (const [id, committed] of committedAt) {
        const latencies = (arrivals[id] ?? []).map((at) => at - committed);
        result.missing += streamCount - latencies.length;
        result.deliveries.push(...latencies);
        result.everyStream.push(Math.max(...latencies));
    }

    return result;
}

/** Runs `scenario` on a scratch PostgreSQL database with the Redis bus, when both answer on 127.0.0.1; says so when they do not. */
export async function onPostgresAndRedis<T>(redisUrl: string, scenario: (env: Record<string, string>) => Promise<T>): Promise<T | undefined> {

    const postgres = await scratchPostgres();
    try {
        if (postgres && await redisAnswers(redisUrl)) {
            return await scenario({ DATABASE_URL: postgres.url, REDIS_URL: redisUrl, REDIS_PREFIX: `fr-bench-${Crypto.randomBytes(4).toString('hex')}:` });
        }

        process.stdout.write('PostgreSQL or Redis does not answer on 127.0.0.1: SQLite with the in-process bus only.\n');
        return undefined;
    }
    finally {
        await postgres?.drop();
    }
}

const ms = (value: number) => value.toFixed(1);

/** Columns a benchmark adds to each row of its own. */
export interface ExtraColumns<Result> {
    headers: string[];
    cells(result: Result): string[];
}

/** The table of the results, each row followed by `extra` columns. */
export function printFanOutTable<Result extends FanOutResult>(results: readonly Result[], extra: ExtraColumns<Result> = { headers: [], cells: () => [] }): void {

    process.stdout.write('\n');
    printTable([
        ['scenario', 'open s', 'deliveries', 'p50 ms', 'p99 ms', 'max ms', 'every stream p50 ms', 'every stream p99 ms', 'missing', ...extra.headers],
        ...results.map((result) => [
            result.scenario,
            result.openSeconds.toFixed(1),
            String(result.deliveries.length),
            ms(percentile(result.deliveries, 0.5)),
            ms(percentile(result.deliveries, 0.99)),
            ms(Math.max(...result.deliveries)),
            ms(percentile(result.everyStream, 0.5)),
            ms(percentile(result.everyStream, 0.99)),
            String(result.missing),
            ...extra.cells(result)
        ])
    ]);
}

/** The target (p99 on every stream under `targetP99Ms`) for each of `measured`; FAILED, and a non-zero exit, for any of `results` that missed a delivery. */
export function printFanOutVerdicts(results: readonly FanOutResult[], measured: readonly FanOutResult[], targetP99Ms: number, streamCount: number): void {

    printTargets(measured.map((result) => ({
        target: `${result.scenario}: p99 under ${targetP99Ms} ms from commit to arrival on every one of ${streamCount} streams`,
        measured: `p99 ${ms(percentile(result.everyStream, 0.99))} ms (each delivery: p99 ${ms(percentile(result.deliveries, 0.99))} ms)`,
        met: percentile(result.everyStream, 0.99) < targetP99Ms
    })));

    for (const result of results.filter((candidate) => candidate.missing > 0)) {
        process.stdout.write(`\nFAILED: ${result.scenario}: ${result.missing} deliveries never arrived\n`);
        process.exitCode = 1;
    }
}
