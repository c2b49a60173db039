/*
 * A CSV export of 100,000 persons through real HTTP — the whole gateway, keyset batches of 2,000
 * read from the database, the CSV renderer (@json2csv/node's streaming transform), chunked
 * HTTP to a client in a worker thread — against the same renderer converting the same 100,000
 * records already held in memory, in one run, on the embedded SQLite default and on PostgreSQL
 * when it answers on 127.0.0.1.
 * Targets: the export at least 50% of the in-memory converter's rows/s, and the process's
 * peak RSS growth during the export under 100 MB (the export must not hold the collection).
 * The in-memory converter is measured two ways: the export's own renderer over the records, and
 * @json2csv/node's own AsyncParser over the same array with the same options (the same bytes).
 */
import { once } from 'events';
import { performance } from 'perf_hooks';
import { Worker } from 'worker_threads';

import { AsyncParser } from '@json2csv/node';

import type { Server } from '@hapi/hapi';

import { persons } from '../models/resources/persons';
import { csvOptions, csvRenderer } from '../plugins/formats/csv';
import { PdfFontSet } from '../plugins/formats/pdf-fonts';
import { columnsOf } from '../plugins/formats/tables';
import type { ExportRecord } from '../plugins/formats/types';
import { serializeRecord } from '../plugins/records/serialize';
import { familyWithKey } from '../test/helpers/server';
import { collectGarbage, rssPeakSampler } from './lib/memory';
import { scratchPostgres } from './lib/postgres';
import { median, printMachine, printTable, printTargets, tablePercent, targetPercent } from './lib/report';
import { runScript } from './lib/run';
import { seedPersons } from './lib/seed';
import { benchDeployment } from './lib/servers';

const personCount = 100_000;
const runs = Number(process.env.BENCH_RUNS ?? 5);
const targetRatio = 0.5;
const targetRssGrowthMb = 100;

interface Run {
    seconds: number;
    bytes: number;
    rows: number;
    peakRssGrowth?: number;
}

const megabytes = (bytes: number) => bytes / 1024 / 1024;
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

/** Times one in-memory conversion of `records` to CSV, from building its stream to its last row's text, counted as the UTF-8 sent. */
async function timedConversion(records: Record<string, unknown>[], convert: () => AsyncIterable<string>): Promise<Run> {

    let bytes = 0;
    const started = performance.now();
    for await (const chunk of convert()) {
        bytes += Buffer.byteLength(chunk);
    }

    return { seconds: (performance.now() - started) / 1000, bytes, rows: records.length };
}

/** The export's own CSV renderer (@json2csv's streaming transform, same columns and cells) over records already in memory. */
function convertInMemory(records: Record<string, unknown>[]): Promise<Run> {

    const rows = { async *[Symbol.asyncIterator]() {

        yield* records as ExportRecord[];
    } };

    return timedConversion(records, () => csvRenderer.render({ title: 'Persons', familyName: 'Bench', generatedAt: new Date(), aggregate: false, redacted: false, sections: [{ resource: persons, rows }] }, { pdfFonts: new PdfFontSet([]) }));
}

/**
 * @json2csv/node converting the same records in memory its own way (AsyncParser over the array, as its
 * documentation shows), with the renderer's options: the same bytes, without the renderer's per-row
 * async iteration, which the records' reader hands it.
 */
function convertWithAsyncParser(records: Record<string, unknown>[]): Promise<Run> {

    return timedConversion(records, () => new AsyncParser(csvOptions(columnsOf(persons)), {}, { objectMode: true }).parse(records));
}

/** The two in-memory conversions of every round. */
interface InMemory {
    renderer: Run[];
    asyncParser: Run[];
}

/** A deployment under test: seeded, warmed up, with the export's URL and a key for it. */
interface Deployment {
    database: string;
    server: Server;
    familyLongId: string;
    url: string;
    key: string;
    /** Peak RSS growth of an export right after the seeding and warm-up, before the rounds. */
    peakRssGrowth?: number;
    exports: Run[];
    compressedExports: Run[];
}

async function deploy(database: string, databaseUrl: string | undefined): Promise<Deployment> {

    const server: Server = await benchDeployment({ env: databaseUrl ? { DATABASE_URL: databaseUrl } : {} });
    const { familyLongId, key } = await familyWithKey(server);
    process.stderr.write(`${database}: seeding ${personCount} persons\n`);
    await seedPersons(server, familyLongId, personCount);
    const url = `${server.info.uri}/api/v1/persons?format=csv`;
    await exportOnce(`${url}&limit=10000`, key, 'identity');                 // warm-up: JIT, database caches
    const deployment: Deployment = { database, server, familyLongId, url, key, exports: [], compressedExports: [] };
    // The memory target's run comes first, before anything has held the 100,000 records (the baseline's objects, the
    // Sequelize rows they are read from): an export that held its whole result would fit in the heap those leave behind.
    deployment.peakRssGrowth = (await exportChecked(deployment, 'identity')).peakRssGrowth;
    return deployment;
}

/**
 * The records the exports show, as the API serialises them, kept as JSON text between rounds: the
 * baseline gets fresh objects each round, and the exports do not run beside 100,000 live objects.
 */
async function recordsAsText(deployment: Deployment): Promise<string> {

    const records = await deployment.server.app.services.models.records.persons.findAll({ where: { family_long_id: deployment.familyLongId }, order: [['created_at', 'ASC'], ['id', 'ASC']] });
    return JSON.stringify(records.map((record) => serializeRecord(persons, record)));
}

async function exportChecked(deployment: Deployment, acceptEncoding: AcceptEncoding): Promise<Run> {

    const download = await exportOnce(deployment.url, deployment.key, acceptEncoding);
    if (download.rows !== personCount) {
        throw new Error(`the export held ${download.rows} rows, not ${personCount}`);
    }

    return download;
}

/**
 * Round after round, the two in-memory baselines (which must write the same bytes) and then every
 * export, so that the machine's changing speed (a shared VM's can swing by a third within minutes)
 * falls on both sides of each ratio alike. A ratio shown is the median of the rounds' ratios.
 */
async function measureInRounds(deployments: Deployment[], records: string): Promise<InMemory> {

    const inMemory: InMemory = { renderer: [], asyncParser: [] };
    const warmUp = (JSON.parse(records) as Record<string, unknown>[]).slice(0, 10_000);
    await convertInMemory(warmUp);
    await convertWithAsyncParser(warmUp);
    for (let round = 0; round < runs; round++) {
        process.stderr.write(`round ${round + 1} of ${runs}\n`);
        collectGarbage();
        const rendered = await convertInMemory(JSON.parse(records));
        collectGarbage();
        const parsed = await convertWithAsyncParser(JSON.parse(records));
        if (parsed.bytes !== rendered.bytes) {
            throw new Error(`the two in-memory conversions differ: ${rendered.bytes} bytes from the renderer, ${parsed.bytes} from AsyncParser`);
        }

        inMemory.renderer.push(rendered);
        inMemory.asyncParser.push(parsed);
        for (const deployment of deployments) {
            deployment.exports.push(await exportChecked(deployment, 'identity'));
            deployment.compressedExports.push(await exportChecked(deployment, 'gzip'));
        }
    }

    return inMemory;
}

async function csvExport(): Promise<void> {

    printMachine(`csv-export: ${personCount.toLocaleString('en')} persons as CSV over HTTP vs @json2csv in memory`);
    process.stdout.write(`${runs} rounds after a warm-up, each the two in-memory conversions then every export; medians shown, the ratio the median of the rounds' ratios; RSS growth is the process's peak during an export run after the seeding and warm-up, before the rounds, over its RSS at the start\n`);

    const postgres = await scratchPostgres();
    const deployments: Deployment[] = [];
    try {
        deployments.push(await deploy('sqlite', undefined));
        if (postgres) {
            deployments.push(await deploy('postgresql', postgres.url));
        }
        else {
            process.stdout.write('PostgreSQL does not answer on 127.0.0.1: measured SQLite only.\n');
        }

        const inMemory = await measureInRounds(deployments, await recordsAsText(deployments[0]));
        const baselines = [
            { name: 'the renderer', runs: inMemory.renderer },
            { name: "@json2csv's AsyncParser", runs: inMemory.asyncParser }
        ];
        const roundRatios = (measured: Run[], baseline: Run[]) => measured.map((run, round) => rowsPerSecond(run) / rowsPerSecond(baseline[round]));
        const ratios = (measured: Run[]) => baselines.map((baseline) => median(roundRatios(measured, baseline.runs)));
        const row = (scenario: string, measured: Run[], peakRssGrowth?: number) => {

            const growth = peakRssGrowth === undefined ? '—' : megabytes(peakRssGrowth).toFixed(0);
            return [scenario, median(measured.map((run) => run.seconds)).toFixed(2),
                median(measured.map(rowsPerSecond)).toFixed(0), ...ratios(measured).map(tablePercent), megabytes(measured[0].bytes).toFixed(1), growth];
        };

        process.stdout.write('\n');
        printTable([
            ['scenario', 'seconds', 'rows/s', 'vs renderer in memory', 'vs AsyncParser in memory', 'CSV MB', 'peak RSS growth MB'],
            row('CSV renderer (@json2csv) over records in memory', inMemory.renderer),
            row('@json2csv/node AsyncParser over the same records in memory', inMemory.asyncParser),
            ...deployments.flatMap((deployment) => [
                row(`${deployment.database}: GET /api/v1/persons?format=csv`, deployment.exports, deployment.peakRssGrowth),
                row(`${deployment.database}: the same, gzip asked for (not the target)`, deployment.compressedExports)
            ])
        ]);
        for (const baseline of baselines) {
            process.stdout.write(`per-round ratios of the target rows to ${baseline.name}: ${deployments.map((deployment) => `${deployment.database} ${roundRatios(deployment.exports, baseline.runs).map(tablePercent).join(' ')}`).join('; ')}\n`);
        }

        printTargets(deployments.flatMap((deployment) => {

            const growth = megabytes(deployment.peakRssGrowth!);
            const exportRatios = ratios(deployment.exports);
            return [
                ...baselines.map((baseline, index) => ({ target: `${deployment.database}: export at least ${100 * targetRatio}% of ${baseline.name}'s rows/s in memory`, measured: targetPercent(exportRatios[index]), met: exportRatios[index] >= targetRatio })),
                { target: `${deployment.database}: peak RSS growth under ${targetRssGrowthMb} MB`, measured: `${growth.toFixed(0)} MB`, met: growth < targetRssGrowthMb }
            ];
        }));
    }
    finally {
        for (const deployment of deployments) {
            await deployment.server.stop();
        }

        await postgres?.drop();
    }
}

runScript(csvExport);
