import Os from 'os';

import type { BenchSettings, Measurement, MemorySample } from './run';

export interface TargetCheck {
    /** What is promised, e.g. `p99 under 25 ms at 50 connections`. */
    target: string;
    /** What was measured, in the target's own terms. */
    measured: string;
    met: boolean;
}

/** A ratio as a target line shows it: to a tenth, so that a figure just short of the target does not print as the target itself. */
export const targetPercent = (ratio: number): string => `${(100 * ratio).toFixed(1)}%`;

/** A ratio as a table cell shows it: a whole percent. */
export const tablePercent = (ratio: number): string => `${(100 * ratio).toFixed(0)}%`;

const out = (line = '') => process.stdout.write(`${line}\n`);
const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const memory = (before: MemorySample, after: MemorySample, key: keyof MemorySample) => `${megabytes(before[key])} → ${megabytes(after[key])}`;

/** The title and the machine: node, cores, memory and how busy it already was. */
export function printMachine(title: string): void {

    const cpus = Os.cpus();
    out(`\n== ${title} ==`);
    out(`node ${process.version}, ${Os.platform()} ${Os.arch()}, ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ${megabytes(Os.totalmem())} MB memory, load average ${Os.loadavg().map((load) => load.toFixed(2)).join(' ')}`);
}

export function printEnvironment(title: string, settings: BenchSettings): void {

    printMachine(title);
    out(`${settings.connections} connections; per target ${settings.warmupSeconds} s warm-up discarded, then ${settings.durationSeconds} s measured in ${settings.rounds} slices taken in turns with the other targets; load generator in a worker thread of this process`);
}

/** Rows of cells as an aligned text table, the first row its header. */
export function printTable(rows: string[][]): void {

    const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
    const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
    out(line(rows[0]));
    out(widths.map((width) => '-'.repeat(width)).join('  '));
    rows.slice(1).forEach((row) => out(line(row)));
}

/** One row per measurement; the ratio is requests/s against `baseline`. */
export function printMeasurements(measurements: Measurement[], baseline: Measurement): void {

    out();
    printTable([
        ['scenario', 'req/s', 'mean ms', 'p50 ms', 'p99 ms', 'vs bare', 'server µs/req', 'errors', 'non-2xx', 'RSS MB', 'heap used MB'],
        ...measurements.map((m) => [
            m.scenario,
            m.requestsPerSecond.toFixed(0),
            m.meanMs.toFixed(2),
            String(m.p50Ms),
            String(m.p99Ms),
            tablePercent(m.requestsPerSecond / baseline.requestsPerSecond),
            m.serverMicrosPerRequest.toFixed(1),
            String(m.errors),
            String(m.non2xx),
            memory(m.memoryBefore, m.memoryAfter, 'rssBytes'),
            memory(m.memoryBefore, m.memoryAfter, 'heapUsedBytes')
        ])
    ]);
}

export function printTargets(checks: TargetCheck[]): void {

    out();
    for (const check of checks) {
        out(`${check.met ? 'met   ' : 'MISSED'}  ${check.target}: ${check.measured}`);
    }
}

/** Every response must have been a 2xx: a run that measured errors measured the wrong thing. Sets the exit code. */
export function assertNoErrors(measurements: Measurement[]): void {

    const failed = measurements.filter((m) => m.errors > 0 || m.non2xx > 0);
    for (const m of failed) {
        const codes = Object.entries(m.statusCodes).map(([code, count]) => `${code}: ${count}`).join(', ');
        out(`\nFAILED: ${m.scenario} had ${m.errors} connection errors and ${m.non2xx} non-2xx responses (status codes ${codes || 'none'})`);
    }

    if (failed.length > 0) {
        process.exitCode = 1;
    }
}

/** The value `share` (0 to 1) of the way up the sorted values: 0.99 for p99. */
export const percentile = (values: number[], share: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(share * values.length))];

/** The middle value (of an even count, the upper of the two middle ones). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
