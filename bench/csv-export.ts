/*
 * A CSV export of 100,000 persons through real HTTP — the whole gateway, keyset batches of 2,000
 * read from the database, the CSV renderer (@json2csv/node's streaming transform), chunked
 * HTTP to a client in a worker thread — against the same renderer converting the same 100,000
 * records already held in memory, in one run, on the embedded SQLite default and on PostgreSQL
 * when it answers on 127.0.0.1.
 * Targets: the export at least 50% of the in-memory converter's rows/s, and the process's
 * peak RSS growth during the export under 100 MB (the export must not hold the collection).
 */
import { once } from 'events';
import { performance } from 'perf_hooks';
import { Worker } from 'worker_threads';

import type { Server } from '@hapi/hapi';

import { persons } from '../models/resources/persons';
import { csvRenderer } from '../plugins/formats/csv';
import type { ExportRecord } from '../plugins/formats/types';
import { serializeRecord } from '../plugins/records/serialize';
import { familyWithKey } from '../test/helpers/server';
import { collectGarbage, rssPeakSampler } from './lib/memory';
import { withScratchPostgres } from './lib/postgres';
import { printMachine, printTable, printTargets, type TargetCheck } from './lib/report';
import { runScript } from './lib/run';
import { seedPersons } from './lib/seed';
import { benchDeployment } from './lib/servers';

const personCount = 100_000;
const runs = Number(process.env.BENCH_RUNS ?? 3);
const targetRatio = 0.5;
const targetRssGrowthMb = 100;

interface Run {
    seconds: number;
    bytes: number;
    rows: number;
    peakRssGrowth?: number;
}

const megabytes = (bytes: number) => bytes / 1024 / 1024;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rowsPerSecond = (run: Run) => run.rows / run.seconds;

/**
 * The HTTP client, in a worker thread (as autocannon runs its load): a real client is another
 * process, so it must not take the server's event loop. It reads the body and drops it as it
 * arrives, as a client saving it to disk would, counting bytes and line breaks.
 */
const clientSource = `
const { parentPort, workerData } = require('worker_threads');
(async () => {
    const started = performance.now();
    const response = await fetch(workerData.url, { headers: { authorization: 'Bearer ' + workerData.key, 'accept-encoding': workerData.acceptEncoding } });
    if (response.status !== 200) {
        throw new Error(workerData.url + ' answered ' + response.status + ': ' + await response.text());
    }
    let bytes = 0;
    let lines = 0;
    for await (const chunk of response.body) {
        bytes += chunk.length;
        for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) {
            lines += 1;
        }
    }
    parentPort.postMessage({ seconds: (performance.now() - started) / 1000, bytes, lines, contentEncoding: response.headers.get('content-encoding') ?? 'identity' });
})();`;

/**
 * How the client asks for the body: `identity`, the CSV itself, as curl and wget download a file by
 * default and as the in-memory baseline produces it (the same bytes); `gzip`, as browsers and
 * `fetch` ask, which adds the server's compression (and the client's inflating) to the same cores.
 */
type AcceptEncoding = 'identity' | 'gzip';

/** One export over HTTP; the header ends with the first of the body's line breaks and the last row has none, so lines = rows. */
async function exportOnce(url: string, key: string, acceptEncoding: AcceptEncoding): Promise<Run> {

    collectGarbage();
    const memory = rssPeakSampler();
    const client = new Worker(clientSource, { eval: true, workerData: { url, key, acceptEncoding } });
    const [result] = await once(client, 'message') as [{ seconds: number; bytes: number; lines: number; contentEncoding: string }];
    if (result.contentEncoding !== acceptEncoding) {
        throw new Error(`asked for ${acceptEncoding}, the export came ${result.contentEncoding}`);
    }

    return { seconds: result.seconds, bytes: result.bytes, rows: result.lines, peakRssGrowth: memory.stop() };
}

/** The export's own CSV renderer (@json2csv's streaming transform, same columns and cells) over records already in memory. */
async function convertInMemory(records: Record<string, unknown>[]): Promise<Run> {

    let bytes = 0;
    const rows = { async *[Symbol.asyncIterator]() {

        yield* records as ExportRecord[];
    } };

    const started = performance.now();
    const csv = csvRenderer.render({ title: 'Persons', familyName: 'Bench', generatedAt: new Date(), aggregate: false, sections: [{ resource: persons, rows }] });
    for await (const chunk of csv as AsyncIterable<string>) {
        bytes += Buffer.byteLength(chunk);             // the renderer hands out each row's CSV text; counted as the UTF-8 sent
    }

    return { seconds: (performance.now() - started) / 1000, bytes, rows: records.length };
}

interface DatabaseResult {
    database: string;
    exports: Run[];
    compressedExports: Run[];
    inMemory?: Run[];
}

async function measureDatabase(database: string, databaseUrl: string | undefined, convertToo: boolean): Promise<DatabaseResult> {

    const server: Server = await benchDeployment({ env: databaseUrl ? { DATABASE_URL: databaseUrl } : {} });
    try {
        const { familyLongId, key } = await familyWithKey(server);
        process.stderr.write(`${database}: seeding ${personCount} persons\n`);
        await seedPersons(server, familyLongId, personCount);
        const url = `${server.info.uri}/api/v1/persons?format=csv`;

        await exportOnce(`${url}&limit=10000`, key, 'identity');                 // warm-up: JIT, database caches
        const measure = async (acceptEncoding: AcceptEncoding): Promise<Run[]> => {

            const measured: Run[] = [];
            for (let run = 0; run < runs; run++) {
                process.stderr.write(`${database}: export ${run + 1} of ${runs} (${acceptEncoding})\n`);
                const download = await exportOnce(url, key, acceptEncoding);
                if (download.rows !== personCount) {
                    throw new Error(`the export held ${download.rows} rows, not ${personCount}`);
                }

                measured.push(download);
            }

            return measured;
        };

        const exports = await measure('identity');
        const compressedExports = await measure('gzip');
        if (!convertToo) {
            return { database, exports, compressedExports };
        }

        const records = (await server.app.services.models.records.persons.findAll({ where: { family_long_id: familyLongId }, order: [['created_at', 'ASC'], ['id', 'ASC']] }))
            .map((record) => serializeRecord(persons, record));
        await convertInMemory(records.slice(0, 10_000));               // warm-up
        const inMemory: Run[] = [];
        for (let run = 0; run < runs; run++) {
            inMemory.push(await convertInMemory(records));
        }

        return { database, exports, compressedExports, inMemory };
    }
    finally {
        await server.stop();
    }
}

async function csvExport(): Promise<void> {

    printMachine(`csv-export: ${personCount.toLocaleString('en')} persons as CSV over HTTP vs @json2csv in memory`);
    process.stdout.write(`${runs} measured runs of each after a warm-up; medians shown; RSS growth is the process's peak during one export over its RSS at the start\n`);

    const results = [await measureDatabase('sqlite', undefined, true)];
    const postgres = await withScratchPostgres((url) => measureDatabase('postgresql', url, false));
    if (postgres) {
        results.push(postgres);
    }
    else {
        process.stdout.write('PostgreSQL does not answer on 127.0.0.1: measured SQLite only.\n');
    }

    const inMemory = results[0].inMemory!;
    const baselineRate = median(inMemory.map(rowsPerSecond));
    const row = (scenario: string, measured: Run[]) => {

        const rate = median(measured.map(rowsPerSecond));
        const growth = measured.some((run) => run.peakRssGrowth !== undefined) ? `${megabytes(Math.max(...measured.map((run) => run.peakRssGrowth ?? 0))).toFixed(0)}` : '—';
        return [scenario, median(measured.map((run) => run.seconds)).toFixed(2), rate.toFixed(0), `${(100 * rate / baselineRate).toFixed(0)}%`, megabytes(measured[0].bytes).toFixed(1), growth];
    };

    process.stdout.write('\n');
    printTable([
        ['scenario', 'seconds', 'rows/s', 'vs in-memory', 'CSV MB', 'peak RSS growth MB'],
        ['CSV renderer (@json2csv) over records in memory', ...row('', inMemory).slice(1)],
        ...results.flatMap((result) => [
            row(`${result.database}: GET /api/v1/persons?format=csv`, result.exports),
            row(`${result.database}: the same, gzip asked for (not the target)`, result.compressedExports)
        ])
    ]);

    const targets: TargetCheck[] = results.flatMap((result) => {

        const ratio = median(result.exports.map(rowsPerSecond)) / baselineRate;
        const growth = megabytes(Math.max(...result.exports.map((run) => run.peakRssGrowth ?? 0)));
        return [
            { target: `${result.database}: export at least ${100 * targetRatio}% of the in-memory rows/s`, measured: `${(100 * ratio).toFixed(0)}%`, met: ratio >= targetRatio },
            { target: `${result.database}: peak RSS growth under ${targetRssGrowthMb} MB`, measured: `${growth.toFixed(0)} MB`, met: growth < targetRssGrowthMb }
        ];
    });

    printTargets(targets);
}

runScript(csvExport);
