import autocannon from 'autocannon';

/** How long and how hard to load each target; from the environment so a quick look costs seconds. */
export interface BenchSettings {
    warmupSeconds: number;
    durationSeconds: number;
    connections: number;
}

function positiveNumber(name: string, fallback: number): number {

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
        connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 50))
    };
}

export interface Target {
    /** What the row measures, as the table shows it. */
    scenario: string;
    url: string;
    headers?: Record<string, string>;
}

export interface MemorySample {
    rssBytes: number;
    heapUsedBytes: number;
}

export interface Measurement {
    scenario: string;
    requestsPerSecond: number;
    p50Ms: number;
    p99Ms: number;
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

function load(target: Target, connections: number, seconds: number): Promise<autocannon.Result> {

    // One worker thread: the load generator gets the second core instead of sharing the servers' event loop.
    return autocannon({ url: target.url, headers: target.headers, connections, duration: seconds, workers: 1 });
}

/** Loads `target` for the warm-up (discarded), then for the measured run. */
export async function measure(target: Target, settings: BenchSettings): Promise<Measurement> {

    process.stderr.write(`${target.scenario}: ${settings.warmupSeconds} s warm-up, then ${settings.durationSeconds} s measured at ${settings.connections} connections\n`);
    const memoryBefore = memorySample();
    await load(target, settings.connections, settings.warmupSeconds);
    const result = await load(target, settings.connections, settings.durationSeconds);
    const memoryAfter = memorySample();

    const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]));
    return {
        scenario: target.scenario,
        requestsPerSecond: result.requests.total / result.duration,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        errors: result.errors,
        non2xx: result.non2xx,
        statusCodes,
        memoryBefore,
        memoryAfter
    };
}
