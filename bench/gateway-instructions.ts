/*
 * What the gateway costs, counted in instructions instead of time: the rows of gateway-noop.ts run in
 * one node process under valgrind's callgrind (lib/instruction-servers.ts), loaded from this process,
 * and each row's figure is the instructions that process executed per request, median of the rounds.
 * Why a second gateway benchmark: on a shared machine the requests/s ratio of gateway-noop moves
 * between runs minutes apart by more than any change to the request path would, while a count of
 * instructions does not depend on what else the machine is doing (bench/README.md, "Reading the output").
 * Single rounds still jump when they hold a full garbage collection, hence medians.
 * The ratio bare ÷ gateway is what the requests/s ratio would be if every instruction took the same
 * time: it leaves out the kernel (callgrind counts user space) and the memory cache. Not a replacement
 * for gateway-noop's target, which is in requests/s; a reading of the same cost that holds still.
 */
import Path from 'path';

import { assertCallgrindInstalled, type CountedProcess, countInstructions } from './lib/callgrind';
import { CountedLoader } from './lib/counted-load';
import { type InstructionTargets, readyPrefix } from './lib/instruction-servers';
import { ranNoPolicy, ranThePolicyChain, wroteFixedRateLimitHeaders } from './lib/noop-routes';
import { preflight } from './lib/preflight';
import { median, percentile, printMachine, printTable, printTargets, tablePercent, targetPercent } from './lib/report';
import { positiveNumber, runScript, type Target } from './lib/run';

const targetRatio = 0.85;

interface Settings {
    warmupRequests: number;
    requestsPerRound: number;
    rounds: number;
    connections: number;
}

interface Row {
    target: Target;
    load: CountedLoader;
    /** Instructions per request, one figure per round. */
    counts: number[];
    seconds: number;
    latenciesMs: number[];
    failures: number;
}

const settings = (): Settings => ({
    warmupRequests: Math.round(positiveNumber('BENCH_WARMUP_REQUESTS', 8_000)),
    requestsPerRound: Math.round(positiveNumber('BENCH_REQUESTS', 2_000)),
    rounds: Math.round(positiveNumber('BENCH_ROUNDS', 5)),
    // Under callgrind the server's threads take turns on one core: more connections only queue longer.
    connections: Math.round(positiveNumber('BENCH_CONNECTIONS', 10))
});

const thousands = (count: number) => `${(count / 1000).toFixed(1)}k`;

/** Each row's requests in rounds taken in turns, as gateway-noop does: what still moves the counts falls on every row alike. */
async function measureRows(counted: CountedProcess, rows: Row[], options: Settings): Promise<void> {

    for (const row of rows) {
        process.stderr.write(`${row.target.scenario}: ${options.warmupRequests} requests of warm-up\n`);
        await row.load.slice(options.warmupRequests);
    }

    for (let round = 1; round <= options.rounds; ++round) {
        process.stderr.write(`round ${round} of ${options.rounds}: ${options.requestsPerRound} requests per row\n`);
        for (const row of rows) {
            await counted.zero();
            const slice = await row.load.slice(options.requestsPerRound);
            row.counts.push(await counted.instructions() / options.requestsPerRound);
            row.seconds += slice.seconds;
            row.latenciesMs.push(...slice.latenciesMs);
            row.failures += Object.entries(slice.statusCodes).filter(([code]) => code !== '200').reduce((sum, [, count]) => sum + count, 0);
        }
    }
}

function printRows(rows: Row[], rssBytes: number): void {

    const baseline = median(rows[0].counts);
    process.stdout.write('\n');
    printTable([
        ['scenario', 'instructions/req', 'rounds min–max', 'vs bare', 'req/s under callgrind', 'p50 ms', 'p99 ms', 'non-200'],
        ...rows.map((row) => [
            row.target.scenario,
            thousands(median(row.counts)),
            `${thousands(Math.min(...row.counts))}–${thousands(Math.max(...row.counts))}`,
            tablePercent(baseline / median(row.counts)),
            (row.latenciesMs.length / row.seconds).toFixed(0),
            percentile(row.latenciesMs, 0.5).toFixed(1),
            percentile(row.latenciesMs, 0.99).toFixed(1),
            String(row.failures)
        ])
    ]);
    process.stdout.write(`\nRSS of the counted process at the end, valgrind's own included: ${(rssBytes / 1024 / 1024).toFixed(0)} MB\n`);
}

async function gatewayInstructions(): Promise<void> {

    const options = settings();
    await assertCallgrindInstalled();
    printMachine('gateway-instructions: the whole gateway chain vs bare hapi, in instructions per request');
    process.stdout.write(`${options.connections} connections; per row ${options.warmupRequests} requests of warm-up discarded, then ${options.rounds} rounds of ${options.requestsPerRound} requests taken in turns with the other rows; servers in one node process (--single-threaded --predictable-gc-schedule) under callgrind, load from outside it\n`);

    const counted = await countInstructions(Path.join(__dirname, 'lib', 'instruction-servers.js'), readyPrefix);
    try {
        const targets: InstructionTargets = JSON.parse(counted.readyLine.slice(readyPrefix.length));
        await preflight(targets.bare, { status: 200 });
        await preflight(targets.ungated, { status: 200 });
        await preflight(targets.admitted, { status: 200, check: ranNoPolicy });
        await preflight(targets.admittedWithHeaders, { status: 200, check: wroteFixedRateLimitHeaders });
        await preflight(targets.authOnly, { status: 200, check: ranNoPolicy });
        await preflight(targets.gateway, { status: 200, check: ranThePolicyChain });

        const rows: Row[] = [targets.bare, targets.ungated, targets.admitted, targets.admittedWithHeaders, targets.authOnly, targets.gateway]
            .map((target) => ({ target, load: new CountedLoader(target, options.connections), counts: [], seconds: 0, latenciesMs: [], failures: 0 }));

        try {
            await measureRows(counted, rows, options);
        }
        finally {
            rows.forEach((row) => row.load.stop());
        }

        printRows(rows, counted.rssBytes());
        // The baseline first, the gateway last.
        const [bare, gateway] = [rows[0], rows[rows.length - 1]];
        const ratio = median(bare.counts) / median(gateway.counts);
        printTargets([{ target: `gateway at least ${100 * targetRatio}% of bare hapi, as bare ÷ gateway instructions per request`, measured: targetPercent(ratio), met: ratio >= targetRatio }]);
        if (rows.some((row) => row.failures > 0)) {
            process.stdout.write('\nFAILED: some answers were not 200; the counts measured the wrong thing\n');
            process.exitCode = 1;
        }
    }
    finally {
        await counted.stop();
    }
}

runScript(gatewayInstructions);
