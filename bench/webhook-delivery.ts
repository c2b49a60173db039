/*
 * Webhook deliveries per second: a backlog of change events for one family with one
 * endpoint, drained by the real delivery worker (fan-out into the queue, claims, the
 * destination check of every delivery — resolve, every address checked against the
 * policy — signing, HTTPS POST to a receiver on 127.0.0.1 over kept-alive connections,
 * outcomes written in batches), on the embedded SQLite default and on PostgreSQL when it
 * answers on 127.0.0.1. The policy is the shipped one except that loopback and the
 * receiver's port are allowed, as in the tests. Target: at least 500 deliveries/s.
 */
import { performance } from 'perf_hooks';

import type { Server } from '@hapi/hapi';

import { familyWithKey } from '../test/helpers/server';
import { receiverHost, TestReceiver } from '../test/plugins/webhooks/helpers/receiver';
import { receiverPolicies, scriptedResolver } from '../test/plugins/webhooks/helpers/setup';
import { withScratchPostgres } from './lib/postgres';
import { median, percentile, printMachine, printTable, printTargets } from './lib/report';
import { runScript } from './lib/run';
import { benchDeployment } from './lib/servers';

const eventCount = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000);
const warmupCount = 500;
const runs = Number(process.env.BENCH_RUNS ?? 3);
const targetPerSecond = 500;

interface Drain {
    seconds: number;
    delivered: number;
    p50Ms: number;
    p99Ms: number;
}

/**
 * Writes `count` change events at once (straight into the log, as committed writes leave
 * them), announces them on the change bus and waits until every delivery is recorded as
 * delivered: from commit to the last outcome written.
 */
async function drain(server: Server, receiver: TestReceiver, familyLongId: string, endpointId: string, count: number): Promise<Drain> {

    const { models, changeBus } = server.app.services;
    const receivedBefore = receiver.received.length;
    const deliveredBefore = await models.WebhookDelivery.count({ where: { endpoint_id: endpointId, status: 'delivered' } });
    const rows = Array.from({ length: count }, (_, i) => ({ family_long_id: familyLongId, resource: 'persons', action: 'updated' as const, record_id: 'per_benchmark000000000', revision: i + 1, occurred_at: new Date() }));

    const started = performance.now();
    for (let start = 0; start < rows.length; start += 1000) {
        await models.ChangeEvent.bulkCreate(rows.slice(start, start + 1000));
    }

    changeBus.publish({ family_long_id: familyLongId, previous_id: 0, events: [] });
    let delivered = 0;
    while (delivered < count) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        delivered = await models.WebhookDelivery.count({ where: { endpoint_id: endpointId, status: 'delivered' } }) - deliveredBefore;
    }

    const seconds = (performance.now() - started) / 1000;
    if (receiver.received.length - receivedBefore < count) {
        throw new Error(`the receiver got ${receiver.received.length - receivedBefore} of ${count} deliveries`);
    }

    const latencies = (await models.WebhookAttempt.findAll({ where: { endpoint_id: endpointId }, attributes: ['latency_ms'], order: [['id', 'DESC']], limit: count }))
        .map((attempt) => attempt.latency_ms);
    return { seconds, delivered, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
}

async function measureDatabase(database: string, databaseUrl: string | undefined): Promise<{ database: string; drains: Drain[] }> {

    const receiver = await TestReceiver.start();
    const server = await benchDeployment({ env: { POLICIES_DIR: receiverPolicies(receiver), ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) } });
    server.plugins.webhooks.useTestTransport({ ca: receiver.ca, resolve: scriptedResolver({ [receiverHost]: '127.0.0.1' }) });
    try {
        const family = await familyWithKey(server);
        const { endpoint } = await server.plugins.webhooks.createEndpoint(family.familyLongId, { url: receiver.url(), resources: ['persons'] }, 'bench');

        process.stderr.write(`${database}: warm-up of ${warmupCount} deliveries, then ${runs} drains of ${eventCount}\n`);
        await drain(server, receiver, family.familyLongId, endpoint.id, warmupCount);
        const drains: Drain[] = [];
        for (let run = 0; run < runs; run++) {
            drains.push(await drain(server, receiver, family.familyLongId, endpoint.id, eventCount));
        }

        return { database, drains };
    }
    finally {
        await server.stop();
        await receiver.close();
    }
}

async function webhookDelivery(): Promise<void> {

    printMachine(`webhook-delivery: ${eventCount} change events → deliveries to an HTTPS receiver on 127.0.0.1, destination checks on`);
    const results = [await measureDatabase('sqlite', undefined)];
    const postgres = await withScratchPostgres((url) => measureDatabase('postgresql', url));
    if (postgres) {
        results.push(postgres);
    }
    else {
        process.stdout.write('PostgreSQL does not answer on 127.0.0.1: measured SQLite only.\n');
    }

    process.stdout.write('\n');
    printTable([
        ['database', 'run', 'deliveries', 'seconds', 'deliveries/s', 'attempt p50 ms', 'attempt p99 ms'],
        ...results.flatMap(({ database, drains }) => drains.map((drained, index) => [
            database, String(index + 1), String(drained.delivered), drained.seconds.toFixed(2), (drained.delivered / drained.seconds).toFixed(0),
            String(drained.p50Ms), String(drained.p99Ms)
        ]))
    ]);

    printTargets(results.map(({ database, drains }) => {

        const rate = median(drains.map((drained) => drained.delivered / drained.seconds));
        return { target: `${database}: at least ${targetPerSecond} deliveries/s`, measured: `median ${rate.toFixed(0)} deliveries/s`, met: rate >= targetPerSecond };
    }));
}

runScript(webhookDelivery);
