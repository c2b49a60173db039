/*
 * Catch-up through sync: a device that was offline while 10,000 messaging changes happened reads them all
 * with `GET /messaging/v1/sync?cursor=…`, page after page (each change with its message), through the whole
 * gateway, on SQLite and (when it answers) PostgreSQL. Baseline: a bare hapi route answering the same pages
 * (the same JSON, made once), read the same way, in the same run.
 * Target: at least 20,000 changes/s.
 */
import type { Server } from '@hapi/hapi';

import { recordId } from '../lib/ids';
import { createGroup } from '../lib/messaging/conversations';
import { connectedDevice } from '../test/helpers/devices';
import { messagingFamily } from '../test/helpers/messaging';
import { withBareAndDeployments } from './lib/deployments';
import { collectGarbage } from './lib/memory';
import { percentile, printMachine, printTable, printTargets } from './lib/report';
import { positiveNumber, runScript } from './lib/run';

const changeCount = Math.round(positiveNumber('BENCH_CHANGES', 10_000));
const repetitions = Math.round(positiveNumber('BENCH_ROUNDS', 5));
const targetPerSecond = 20_000;

interface SyncPage {
    data: unknown[];
    next_cursor: string;
    has_more: boolean;
}

/** `changeCount` messages of a group of 50, and their changes, written straight into the tables (as sends over days would leave them). */
async function seedChanges(server: Server): Promise<{ token: string; start: string }> {

    const { users, actors, familyLongId } = await messagingFamily(server, 50);
    const { models, transaction } = server.app.services;
    const group = await createGroup(server.app.services.messaging, actors[0], 'Everyone', users.slice(1).map((user) => user.id));
    const startAnswer = await syncPage(server, (await connectedDevice(server, users[1])).access_token);
    const first = Date.now() - changeCount * 10;
    await transaction(async (t) => {

        for (let start = 0; start < changeCount; start += 1000) {
            const batch = Array.from({ length: Math.min(1000, changeCount - start) }, (_, i) => {

                const at = new Date(first + (start + i) * 10);
                return { id: recordId('msg'), at, sender: users[(start + i) % users.length].id, text: `Message ${start + i}: see you at the reunion 🎉` };
            });
            await models.Message.bulkCreate(batch.map((m) => ({
                id: m.id, conversation_id: group.id, family_long_id: familyLongId, sender_id: m.sender, body: m.text, attachments: [], revision: 1, created_at: m.at
            })), { transaction: t });
            await models.MessagingChange.bulkCreate(batch.map((m) => ({
                family_long_id: familyLongId, conversation_id: group.id, user_id: null, kind: 'message' as const, action: 'created' as const, record_id: m.id, revision: 1, occurred_at: m.at
            })), { transaction: t });
        }
    });

    const { access_token: token } = await connectedDevice(server, users[1]);
    return { token, start: startAnswer.next_cursor };
}

async function syncPage(server: Server, token: string, cursor?: string): Promise<SyncPage> {

    const response = await fetch(`${server.info.uri}/messaging/v1/sync${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) {
        throw new Error(`sync answered ${response.status}: ${await response.text()}`);
    }

    return await response.json() as SyncPage;
}

interface CatchUp {
    seconds: number;
    changes: number;
    pageMs: number[];
}

/** One whole catch-up from `start`: every page in turn, as a client does. */
async function catchUp(read: (cursor: string) => Promise<SyncPage>, start: string): Promise<CatchUp> {

    const pageMs: number[] = [];
    let changes = 0;
    const began = performance.now();
    for (let cursor = start, more = true; more;) {
        const pageBegan = performance.now();
        const page = await read(cursor);
        pageMs.push(performance.now() - pageBegan);
        changes += page.data.length;
        cursor = page.next_cursor;
        more = page.has_more;
    }

    return { seconds: (performance.now() - began) / 1000, changes, pageMs };
}

/** The scenario's row: its best-of throughput, page latencies over all repetitions, and memory. */
async function measure(scenario: string, read: (cursor: string) => Promise<SyncPage>, start: string): Promise<{ row: string[]; perSecond: number }> {

    collectGarbage();
    const rssBefore = process.memoryUsage.rss();
    const runs: CatchUp[] = [];
    for (let round = 0; round < repetitions + 1; ++round) {
        runs.push(await catchUp(read, start));
    }

    const measured = runs.slice(1);     // the first warms up
    if (measured.some((run) => run.changes !== changeCount)) {
        throw new Error(`${scenario}: a catch-up read ${measured.map((run) => run.changes).join(', ')} changes, not ${changeCount}`);
    }

    const perSecond = changeCount / percentile(measured.map((run) => run.seconds), 0.5);
    const pages = measured.flatMap((run) => run.pageMs);
    const row = [scenario, perSecond.toFixed(0), String(measured[0].pageMs.length), percentile(pages, 0.5).toFixed(1), percentile(pages, 0.99).toFixed(1),
        ((process.memoryUsage.rss() - rssBefore) / 1024 / 1024).toFixed(0)];
    return { row, perSecond };
}

async function messagingSync(): Promise<void> {

    printMachine(`messaging-sync: catching up ${changeCount} changes through GET /messaging/v1/sync`);
    process.stdout.write(`each scenario: one warm-up catch-up, then the median of ${repetitions}\n`);

    await withBareAndDeployments(async (bare, deployments) => {

        const rows: string[][] = [];
        const checks = [];
        let recorded: Map<string, SyncPage> | undefined;
        for (const { database, server } of deployments) {
            const { token, start } = await seedChanges(server);
            const read = (cursor: string) => syncPage(server, token, cursor);
            if (!recorded) {
                // The baseline answers the very pages this deployment gives, made once.
                recorded = new Map();
                for (let cursor = start, more = true; more;) {
                    const page = await read(cursor);
                    recorded.set(cursor, page);
                    cursor = page.next_cursor;
                    more = page.has_more;
                }

                const pages = recorded;
                bare.route({
                    method: 'GET',
                    path: '/bare-sync',
                    handler: (request) => pages.get(request.query.cursor as string) ?? { data: [], next_cursor: '', has_more: false }
                });
                const baseline = await measure('bare hapi: the same pages', async (cursor) => await (await fetch(`${bare.info.uri}/bare-sync?cursor=${encodeURIComponent(cursor)}`)).json() as SyncPage, start);
                rows.push(baseline.row);
            }

            const { row, perSecond } = await measure(`${database}: GET /messaging/v1/sync`, read, start);
            rows.push(row);
            checks.push({ target: `${database}: at least ${targetPerSecond} changes/s`, measured: `${perSecond.toFixed(0)} changes/s`, met: perSecond >= targetPerSecond });
        }

        process.stdout.write('\n');
        printTable([['scenario', 'changes/s', 'pages', 'page p50 ms', 'page p99 ms', 'RSS growth MB'], ...rows]);
        printTargets(checks);
    });
}

runScript(messagingSync);
