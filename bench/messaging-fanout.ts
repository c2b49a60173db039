/*
 * The recovery stream's fan-out: one message to a group of 50 members, delivered to 1,000
 * recovery streams open on one instance (each member's devices holding 20 streams in all),
 * read by raw HTTP clients in a child process (bench/lib/sse-clients.ts). A message is sent
 * every BENCH_MESSAGING_INTERVAL_MS; for each, the time from its commit (the messaging change
 * log handing its batch to the bus, right after COMMIT) to its arrival on each stream, and on
 * every stream (the last one). Beside it, in the same run, the bare baseline: a plain Node
 * HTTP server writing an event of the same size to as many streams it holds, timed from the
 * write. On the embedded SQLite default with the in-process bus, and on PostgreSQL with the
 * Redis bus when both answer on 127.0.0.1.
 * Target: p99 under 250 ms from commit to arrival on every stream.
 */
import ChildProcess from 'child_process';
import Http from 'http';
import type { AddressInfo } from 'net';
import Path from 'path';

import type { Server } from '@hapi/hapi';

import type { MessagingBatch } from '../lib/messaging/changes';
import { createGroup } from '../lib/messaging/conversations';
import { sendMessage } from '../lib/messaging/messages';
import { changeCursor } from '../lib/messaging/sync';
import { messagingFamily } from '../test/helpers/messaging';
import { deviceToken } from '../test/plugins/messaging/stream-client';
import { fanOutLatencies, onPostgresAndRedis, printFanOutTable, printFanOutVerdicts, type FanOutResult } from './lib/fanout';
import { printMachine } from './lib/report';
import { runScript } from './lib/run';
import { benchDeployment } from './lib/servers';
import { clientsMessage, settledArrivals, wallClockMs, type ClientsCommand } from './lib/sse-protocol';

const streamCount = Number(process.env.BENCH_MESSAGING_STREAMS ?? 1000);
const memberCount = 50;
const messageCount = Number(process.env.BENCH_MESSAGING_MESSAGES ?? 50);
const warmupMessages = 5;
const intervalMs = Number(process.env.BENCH_MESSAGING_INTERVAL_MS ?? 200);
const targetP99Ms = 250;
// Every arrival is in well before this, or something is lost.
const settleTimeoutMs = 30_000;

const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one scenario opens the streams on and sends through: `send` resolves once the message is committed. */
interface Scenario {
    name: string;
    url: string;
    tokens: string[];
    /** Commit times by event id, filled as messages are sent. */
    committedAt: Map<string, number>;
    send(index: number): Promise<void>;
    openStreams(): number;
    stop(): Promise<void>;
}

/** Measures one scenario with SSE clients of its own. */
async function fanOut(scenario: Scenario): Promise<FanOutResult> {

    process.stderr.write(`${scenario.name}: opening ${streamCount} streams\n`);
    const clients = ChildProcess.fork(Path.join(__dirname, 'lib', 'sse-clients.js'), [], { stdio: 'inherit' });
    try {
        clients.send({ kind: 'open', url: scenario.url, keys: scenario.tokens, concurrentOpens: 100 } satisfies ClientsCommand);
        const { seconds: openSeconds } = await clientsMessage(clients, 'opened');
        if (scenario.openStreams() !== streamCount) {
            throw new Error(`${scenario.openStreams()} streams open on the server, expected ${streamCount}`);
        }

        process.stderr.write(`${scenario.name}: ${warmupMessages} messages of warm-up, then ${messageCount} measured, one every ${intervalMs} ms\n`);
        for (let index = 0; index < warmupMessages + messageCount; ++index) {
            if (index === warmupMessages) {
                scenario.committedAt.clear();
            }

            await scenario.send(index);
            await sleep(intervalMs);
        }

        const arrivals = await settledArrivals(clients, [...scenario.committedAt.keys()], streamCount, settleTimeoutMs);
        return { scenario: scenario.name, openSeconds, ...fanOutLatencies(scenario.committedAt, arrivals, streamCount) };
    }
    finally {
        clients.kill();
        await scenario.stop();
    }
}

/** The baseline: a plain Node HTTP server holding every stream, writing each event to all of them in a loop. */
async function bareScenario(eventData: string): Promise<Scenario> {

    const streams = new Set<Http.ServerResponse>();
    const server = Http.createServer((_request, response) => {

        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        response.write('retry: 3000\n\n');
        streams.add(response);
        response.on('close', () => streams.delete(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const committedAt = new Map<string, number>();
    return {
        name: 'bare: node:http writing to every stream',
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        tokens: Array.from({ length: streamCount }, () => 'bare'),
        committedAt,
        send(index) {

            const id = `bare${index}`;
            const text = `id: ${id}\nevent: message.created\ndata: ${eventData}\n\n`;
            committedAt.set(id, wallClockMs());
            streams.forEach((stream) => stream.write(text));
            return Promise.resolve();
        },
        openStreams: () => streams.size,
        stop: () => new Promise<void>((resolve) => {

            streams.forEach((stream) => stream.destroy());
            server.close(() => resolve());
        })
    };
}

/** The service: a family of 50 in one group, each member's devices holding 20 streams (as many devices as the cap per device needs). */
async function serviceScenario(name: string, env: Record<string, string>): Promise<{ scenario: Scenario; server: Server }> {

    const server = await benchDeployment({ env });
    const context = server.app.services.messaging;
    const { actors, users } = await messagingFamily(server, memberCount);
    const group = await createGroup(context, actors[0], 'Everyone', users.slice(1).map((user) => user.id));
    const perDevice = server.app.services.policyStore.current().messaging.stream.max_streams_per_device;
    const tokens: string[] = [];
    for (let index = 0; tokens.length < streamCount; ++index) {
        const token = await deviceToken(server, users[index % memberCount]);
        tokens.push(...Array.from({ length: Math.min(perDevice, streamCount - tokens.length) }, () => token));
    }

    // The commit: afterCommit hands the batch to the bus's publish() (Redis's round trip comes after, as part of the delivery).
    const committedAt = new Map<string, number>();
    const publish = context.bus.publish.bind(context.bus);
    context.bus.publish = (batch: MessagingBatch) => {

        batch.events.forEach((event) => committedAt.set(changeCursor({ id: event.id, occurred_at: new Date(event.occurred_at) }), wallClockMs()));
        publish(batch);
    };

    return {
        server,
        scenario: {
            name,
            url: `${server.info.uri}/messaging/v1/stream`,
            tokens,
            committedAt,
            async send(index) {

                await sendMessage(context, actors[index % memberCount], group.id, { body: `Fan-out ${index}: who brings the cake on Sunday? 🎂` });
            },
            openStreams: () => server.plugins.messaging.recoveryStreams.size,
            stop: () => server.stop({ timeout: 1000 })
        }
    };
}

/** An entry as the recovery stream sends it, for the baseline's events to be of the same size. */
async function sampleEntry(server: Server): Promise<string> {

    const { actors, users } = await messagingFamily(server, 2);
    const group = await createGroup(server.app.services.messaging, actors[0], 'Sample', [users[1].id]);
    const token = await deviceToken(server, users[1]);
    await sendMessage(server.app.services.messaging, actors[0], group.id, { body: 'Fan-out 0: who brings the cake on Sunday? 🎂' });
    const answer = await server.inject({ url: '/messaging/v1/sync', headers: { authorization: `Bearer ${token}` } });
    return JSON.stringify((JSON.parse(answer.payload) as { data: unknown[] }).data.at(-1));
}

async function messagingFanout(): Promise<void> {

    printMachine(`messaging-fanout: one message at a time to a group of ${memberCount}, ${streamCount} recovery streams on one instance, ${messageCount} messages, one every ${intervalMs} ms`);
    process.stdout.write('SSE clients in a child process (raw HTTP, one socket per stream); times from the commit (the bare row: from the write), on this machine\'s clock.\n');

    const sqlite = await serviceScenario('sqlite, in-process bus', {});
    const bare = await bareScenario(await sampleEntry(sqlite.server));
    const results = [await fanOut(bare), await fanOut(sqlite.scenario)];
    const onPostgres = await onPostgresAndRedis(redisUrl, async (env) => fanOut((await serviceScenario('postgresql, redis bus', env)).scenario));
    results.push(...onPostgres ? [onPostgres] : []);

    printFanOutTable(results);
    printFanOutVerdicts(results, results.slice(1), targetP99Ms, streamCount);
}

runScript(messagingFanout);
