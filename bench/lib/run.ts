import Path from 'path';
import { performance } from 'perf_hooks';
import { Worker } from 'worker_threads';

import autocannon from 'autocannon';

import { turnOffAllocationSitePretenuring } from '../../lib/garbage-collection';

/** How long and how hard to load each target; from the environment so a quick look costs seconds. */
export interface BenchSettings {
    warmupSeconds: number;
    /** Measured seconds per target, split into `rounds` slices. */
    durationSeconds: number;
    rounds: number;
    connections: number;
}

export function positiveNumber(name: string, fallback: number): number {

    const raw = process.env[name];
    const value = raw === undefined || raw === '' ? fallback : Number(raw);
    if (!Number.isFinite(value) || value <= 0) {
        throw new Error(`${name} must be a positive number, not "${raw}"`);
    }

    return value;
}

export function benchSettings(): BenchSettings {

    return {
        warmupSeconds: positiveNumber('BENCH_WARMUP', 3),
        durationSeconds: positiveNumber('BENCH_DURATION', 10),
        rounds: Math.round(positiveNumber('BENCH_ROUNDS', 5)),
        connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 50))
    };
}

export interface Target {
    /** What the row measures, as the table shows it. */
    scenario: string;
    url: string;
    headers?: Record<string, string>;
    /** GET unless given; a request that writes sends `body`, the same for every request. */
    method?: 'POST';
    body?: string;
    /** Each request gets its own id where the headers or body say `[<id>]` (autocannon's idReplacement): an Idempotency-Key per request. */
    uniqueIds?: boolean;
}

export interface MemorySample {
    rssBytes: number;
    heapUsedBytes: number;
}

export interface Measurement {
    scenario: string;
    requestsPerSecond: number;
    /** Latencies come from autocannon's histogram of whole milliseconds. */
    meanMs: number;
    p50Ms: number;
    p99Ms: number;
    /**
     * Busy time of this process's event loop (where the servers run) per request: what a request
     * costs the server, whether or not the load generator could saturate it.
     */
    serverMicrosPerRequest: number;
    /** Requests/s of each slice, in the order measured: a slice compares with the other targets' slices of its round. */
    roundRequestsPerSecond: number[];
    /** Connection errors, timeouts included. */
    errors: number;
    non2xx: number;
    statusCodes: Record<string, number>;
    memoryBefore: MemorySample;
    memoryAfter: MemorySample;
}

function memorySample(): MemorySample {

    const usage = process.memoryUsage();
    return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed };
}

/** What autocannon returns outside the main thread: counts, and histograms still encoded. */
interface RawSlice {
    duration: number;
}

// @types/autocannon does not declare it: merges raw slices into one result, histograms included.
const aggregateResult = (autocannon as unknown as { aggregateResult(slices: RawSlice[], options: { url: string }): autocannon.Result }).aggregateResult;

/** A target's load generator: one worker thread, kept for all of its slices (load-worker.ts). */
class LoadGenerator {

    private readonly worker: Worker;

    constructor(private readonly target: Target, private readonly connections: number) {

        this.worker = new Worker(Path.join(__dirname, 'load-worker.js'));
    }

    /** One slice of load on the target. */
    slice(seconds: number): Promise<RawSlice> {

        return new Promise<RawSlice>((resolve, reject) => {

            const fail = (error: Error) => reject(error);
            this.worker.once('error', fail);
            this.worker.once('message', (message: { result?: RawSlice; error?: string }) => {

                this.worker.removeListener('error', fail);
                return message.result ? resolve(message.result) : reject(new Error(message.error));
            });

            const { url, headers, method, body, uniqueIds } = this.target;
            this.worker.postMessage({ url, headers, ...method ? { method, body } : {}, idReplacement: Boolean(uniqueIds), connections: this.connections, duration: seconds });
        });
    }

    async stop(): Promise<void> {

        await this.worker.terminate();
    }
}

interface Progress {
    target: Target;
    load: LoadGenerator;
    memoryBefore: MemorySample;
    slices: RawSlice[];
    busyMilliseconds: number;
}

function measurement({ target, memoryBefore, slices, busyMilliseconds }: Progress): Measurement {

    const result = aggregateResult(slices, { url: target.url });
    const seconds = slices.reduce((sum, slice) => sum + slice.duration, 0);
    const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]));
    return {
        scenario: target.scenario,
        requestsPerSecond: result.requests.total / seconds,
        meanMs: result.latency.mean,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        serverMicrosPerRequest: 1000 * busyMilliseconds / result.requests.total,
        roundRequestsPerSecond: slices.map((slice) => aggregateResult([slice], { url: target.url }).requests.total / slice.duration),
        errors: result.errors,
        non2xx: result.non2xx,
        statusCodes,
        memoryBefore,
        memoryAfter: memorySample()
    };
}

/**
 * Warms every target up (discarded), then measures them in turns of short slices, round after
 * round: load from other work on the machine then falls on every target alike, and the rows of
 * one run compare even when that load comes and goes.
 */
export async function measureTargets(targets: Target[], settings: BenchSettings): Promise<Measurement[]> {

    const progress: Progress[] = [];
    try {
        for (const target of targets) {
            process.stderr.write(`${target.scenario}: ${settings.warmupSeconds} s warm-up\n`);
            const memoryBefore = memorySample();
            const load = new LoadGenerator(target, settings.connections);
            progress.push({ target, load, memoryBefore, slices: [], busyMilliseconds: 0 });
            await load.slice(settings.warmupSeconds);
        }

        const sliceSeconds = settings.durationSeconds / settings.rounds;
        process.stderr.write(`measuring ${settings.rounds} rounds of ${sliceSeconds} s per target at ${settings.connections} connections\n`);
        for (let round = 0; round < settings.rounds; ++round) {
            for (const entry of progress) {
                const loopBefore = performance.eventLoopUtilization();
                entry.slices.push(await entry.load.slice(sliceSeconds));
                entry.busyMilliseconds += performance.eventLoopUtilization(loopBefore).active;
            }
        }

        return progress.map(measurement);
    }
    finally {
        await Promise.all(progress.map((entry) => entry.load.stop()));
    }
}

/**
 * Runs a benchmark script: any failure is printed and makes the exit code non-zero. The process runs
 * with the V8 settings `family-records serve` gives the service (lib/garbage-collection.ts), the
 * baselines in it alike.
 */
export function runScript(script: () => Promise<void>): void {

    turnOffAllocationSitePretenuring();
    script().catch((error: Error) => {

        process.stderr.write(`${error.stack ?? error.message}\n`);
        process.exitCode = 1;
    });
}
