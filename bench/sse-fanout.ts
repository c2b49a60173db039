/*
 * The change stream's fan-out: 2,000 SSE streams open on one instance, all of one family
 * (200 keys with 10 streams each, the stream policy's cap per key), read by raw HTTP clients
 * in a child process (bench/lib/sse-clients.ts) so that reading does not share the server's
 * event loop. A person is created through the records API every BENCH_SSE_INTERVAL_MS; for
 * each change, the time from its commit (the moment the change log announces it on the
 * change bus, right after COMMIT) to its arrival on each stream, and to its arrival on every
 * stream (the last one). On the embedded SQLite default with the in-process bus, and on
 * PostgreSQL with the Redis bus when both answer on 127.0.0.1.
 * Target: p99 under 250 ms until a change has reached every stream.
 */
import ChildProcess from 'child_process';
import Path from 'path';

import type { Server } from '@hapi/hapi';

import { createApiKey } from '../lib/accounts/api-keys';
import type { ChangeBatch } from '../lib/change-bus';
import { allOperations, allResources, familyWithKey } from '../test/helpers/server';
import { fanOutLatencies, onPostgresAndRedis, printFanOutTable, printFanOutVerdicts, type FanOutResult } from './lib/fanout';
import { collectGarbage } from './lib/memory';
import { printMachine } from './lib/report';
import { runScript } from './lib/run';
import { benchDeployment } from './lib/servers';
import { clientsMessage, settledArrivals, wallClockMs, type ClientsCommand } from './lib/sse-protocol';

const streamCount = Number(process.env.BENCH_SSE_STREAMS ?? 2000);
const changeCount = Number(process.env.BENCH_SSE_CHANGES ?? 50);
const warmupChanges = 5;
const intervalMs = Number(process.env.BENCH_SSE_INTERVAL_MS ?? 100);
const targetP99Ms = 250;
// Every arrival is in well before this, or something is lost.
const settleTimeoutMs = 30_000;

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Memory { rss: number; heapUsed: number }

interface Result extends FanOutResult {
    memory: { idle: Memory; open: Memory; after: Memory };
}

function memory(): Memory {

    collectGarbage();
    const { rss, heapUsed } = process.memoryUsage();
    return { rss, heapUsed };
}

/** The keys of one family the streams use, each opened as often as the stream policy allows. */
async function streamKeys(server: Server, familyLongId: string, firstKey: string): Promise<string[]> {

    const perKey = server.app.services.policyStore.current().stream.max_streams_per_key;
    const keys = [firstKey];
    while (keys.length * perKey < streamCount) {
        const { key } = await createApiKey(server.app.services.accounts, { familyLongId, name: `bench key ${keys.length}`, resources: allResources, operations: allOperations, createdBy: 'bench' });
        keys.push(key);
    }

    return Array.from({ length: streamCount }, (_, index) => keys[Math.floor(index / perKey)]);
}

async function fanOut(scenario: string, env: Record<string, string>): Promise<Result> {

    process.stderr.write(`${scenario}: opening ${streamCount} streams\n`);
    const server = await benchDeployment({ env });
    const clients = ChildProcess.fork(Path.join(__dirname, 'lib', 'sse-clients.js'), [], { stdio: 'inherit' });
    try {
        const family = await familyWithKey(server);
        const keys = await streamKeys(server, family.familyLongId, family.key);
        const idle = memory();

        const open: ClientsCommand = { kind: 'open', url: `${server.info.uri}/api/v1/events/stream`, keys, concurrentOpens: 100 };
        clients.send(open);
        const { seconds: openSeconds } = await clientsMessage(clients, 'opened');
        if (server.plugins.stream.openStreams() !== streamCount) {
            throw new Error(`${server.plugins.stream.openStreams()} streams open on the server, expected ${streamCount}`);
        }

        const opened = memory();

        // The commit: afterCommit hands the batch to the bus's publish() (Redis's round trip comes after, as part of the delivery).
        const changeBus = server.app.services.changeBus;
        const publish = changeBus.publish.bind(changeBus);
        const committedAt = new Map<string, number>();
        changeBus.publish = (batch: ChangeBatch) => {

            batch.events.forEach((event) => committedAt.set(String(event.id), wallClockMs()));
            publish(batch);
        };

        process.stderr.write(`${scenario}: ${warmupChanges} changes of warm-up, then ${changeCount} measured, one every ${intervalMs} ms\n`);
        for (let change = 0; change < warmupChanges + changeCount; ++change) {
            if (change === warmupChanges) {
                committedAt.clear();
            }

            const response = await family.inject('POST', '/api/v1/persons', { first_name: 'Fan', last_name: `Out ${change}` });
            if (response.statusCode !== 201) {
                throw new Error(`creating a person answered ${response.statusCode}: ${response.payload}`);
            }

            await sleep(intervalMs);
        }

        const arrivals = await settledArrivals(clients, [...committedAt.keys()], streamCount, settleTimeoutMs);
        return { scenario, openSeconds, ...fanOutLatencies(committedAt, arrivals, streamCount), memory: { idle, open: opened, after: memory() } };
    }
    finally {
        clients.kill();
        await server.stop({ timeout: 1000 });
    }
}

async function sseFanout(): Promise<void> {

    printMachine(`sse-fanout: ${streamCount} streams of one family on one instance, ${changeCount} changes, one every ${intervalMs} ms`);
    process.stdout.write('SSE clients in a child process (raw HTTP, one socket per stream); times from the commit, on this machine\'s clock.\n');

    const results: Result[] = [await fanOut('sqlite, in-process bus', {})];
    const onPostgres = await onPostgresAndRedis(redisUrl, (env) => fanOut('postgresql, redis bus', env));
    results.push(...onPostgres ? [onPostgres] : []);

    printFanOutTable(results, {
        headers: ['RSS MB idle → open → after', 'heap MB idle → open', 'heap KB per stream'],
        cells: (result) => [
            `${megabytes(result.memory.idle.rss)} → ${megabytes(result.memory.open.rss)} → ${megabytes(result.memory.after.rss)}`,
            `${megabytes(result.memory.idle.heapUsed)} → ${megabytes(result.memory.open.heapUsed)}`,
            ((result.memory.open.heapUsed - result.memory.idle.heapUsed) / 1024 / streamCount).toFixed(0)
        ]
    });
    printFanOutVerdicts(results, results, targetP99Ms, streamCount);
}

runScript(sseFanout);
