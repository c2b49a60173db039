/*
 * A PDF of 1,000 persons through real HTTP (the whole gateway, the keyset reader, pdfkit with the
 * embedded DejaVu font), on the embedded SQLite default: how long one takes, first byte and last.
 * No target: the PDF is a printable snapshot, not a bulk format (that is CSV).
 */
import { performance } from 'perf_hooks';

import { familyWithKey } from '../test/helpers/server';
import { printMachine, printTable } from './lib/report';
import { runScript } from './lib/run';
import { seedPersons } from './lib/seed';
import { benchDeployment } from './lib/servers';

const personCount = 1000;
const runs = Number(process.env.BENCH_RUNS ?? 5);

async function timedDownload(url: string, key: string): Promise<{ firstByteMs: number; totalMs: number; bytes: number }> {

    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200 || !response.body) {
        throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
    }

    let firstByteMs = 0;
    let bytes = 0;
    for await (const chunk of response.body) {
        firstByteMs ||= performance.now() - started;
        bytes += chunk.length;
    }

    return { firstByteMs, totalMs: performance.now() - started, bytes };
}

async function pdfExport(): Promise<void> {

    printMachine(`pdf-export: ${personCount.toLocaleString('en')} persons as PDF over HTTP`);
    const server = await benchDeployment();
    try {
        const { familyLongId, key } = await familyWithKey(server);
        await seedPersons(server, familyLongId, personCount);
        const url = `${server.info.uri}/api/v1/persons?format=pdf`;
        await timedDownload(url, key);             // warm-up: JIT, the font files, database caches

        const measured = [];
        for (let run = 0; run < runs; run++) {
            measured.push(await timedDownload(url, key));
        }

        process.stdout.write(`${runs} runs after a warm-up\n\n`);
        printTable([
            ['run', 'first byte ms', 'total ms', 'PDF KB'],
            ...measured.map((run, index) => [String(index + 1), run.firstByteMs.toFixed(0), run.totalMs.toFixed(0), (run.bytes / 1024).toFixed(0)])
        ]);

        const totals = measured.map((run) => run.totalMs).sort((a, b) => a - b);
        process.stdout.write(`\nmedian: ${totals[Math.floor(runs / 2)].toFixed(0)} ms for ${personCount} rows\n`);
    }
    finally {
        await server.stop();
    }
}

runScript(pdfExport);
