import ChildProcess from 'child_process';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { QueryTypes } from 'sequelize';

import { projectRoot } from '../../../lib/config';
import { recordId } from '../../../lib/ids';
import { cliEnvironmentOf } from '../../lib/cli/run';
import { testVariant } from '../../helpers/server';
import { answer, TestReceiver, type ReceivedRequest } from './helpers/receiver';
import { createPerson, eventually, familyWithEndpoint, receiverPolicies, webhooksServer } from './helpers/setup';

export const lab = Lab.script();
const { describe, it } = lab;

const workerScript = Path.join(projectRoot, 'dist', 'test', 'plugins', 'webhooks', 'helpers', 'worker-process.js');

/** A worker process on the test server's database; resolves once its worker runs. */
function startWorkerProcess(server: Server, receiver: TestReceiver): Promise<ChildProcess.ChildProcess> {

    const child = ChildProcess.spawn(process.execPath, [workerScript], {
        env: { ...cliEnvironmentOf(server, { PORT: '0', WATCH_POLICIES: 'false' }), WEBHOOK_TEST_CA: receiver.ca },
        stdio: ['ignore', 'pipe', 'inherit']
    });

    return new Promise((resolve, reject) => {

        child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve(child));
        child.once('exit', (code) => reject(new Error(`the worker process exited with ${code} before it was ready`)));
    });
}

/** Delivery ids seen per event id, for the requests of one family. */
function deliveryIdsByEvent(requests: ReceivedRequest[], familyLongId: string): Map<number, Set<string>> {

    const byEvent = new Map<number, Set<string>>();
    for (const request of requests.filter((candidate) => candidate.body.includes(familyLongId))) {
        const eventId = JSON.parse(request.body).id as number;
        byEvent.set(eventId, (byEvent.get(eventId) ?? new Set()).add(request.headers['x-service-delivery'] as string));
    }

    return byEvent;
}

describe('the delivery queue', () => {

    it('loses nothing and keeps delivery ids when a worker process is killed mid-delivery and another drains the queue', { timeout: 90_000 }, async () => {

        const eventCount = 30;
        const receiver = await TestReceiver.start();
        // Slow answers, few in flight: the first worker is surely in the middle of the queue when killed.
        const slowAnswer = (response: Parameters<ReturnType<typeof answer>>[0]) => setTimeout(() => response.writeHead(200).end('ok'), 150);
        receiver.respondWith(...Array.from({ length: 200 }, () => slowAnswer));
        const policiesDir = receiverPolicies(receiver, (policy) => {

            policy.delivery.concurrency = 4;
            policy.delivery.lease_seconds = 4;
        });

        // The test's own server only writes: its worker never starts (it does not listen).
        const server = await webhooksServer(receiver, { policiesDir, start: false });
        try {
            const family = await familyWithEndpoint(server, receiver);
            for (let i = 0; i < eventCount; i++) {
                await createPerson(family, `Person ${i}`);
            }

            const first = await startWorkerProcess(server, receiver);
            await receiver.waitFor(8, 30_000);
            first.kill('SIGKILL');
            await new Promise((resolve) => first.once('exit', resolve));
            const receivedBeforeKill = receiver.received.length;
            expect(receivedBeforeKill).to.be.below(eventCount);

            const second = await startWorkerProcess(server, receiver);
            try {
                const byEvent = await eventually(async () => {

                    const seen = deliveryIdsByEvent(receiver.received, family.familyLongId);
                    return seen.size === eventCount && seen;
                }, 60_000);

                // Every event reached the receiver, each always under one delivery id.
                expect([...byEvent.values()].every((ids) => ids.size === 1)).to.be.true();
                const { WebhookDelivery } = server.app.services.models;
                await eventually(async () => await WebhookDelivery.count({ where: { endpoint_id: family.endpointId, status: 'delivered' } }) === eventCount, 30_000);
                expect(await WebhookDelivery.count({ where: { endpoint_id: family.endpointId } })).to.equal(eventCount);
            }
            finally {
                second.kill('SIGTERM');
                await new Promise((resolve) => second.once('exit', resolve));
            }
        }
        finally {
            await server.stop();
            await receiver.close();
        }
    });

    it('lets two workers on one database claim without delivering anything twice', { timeout: 60_000 }, async () => {

        const eventCount = 60;
        const receiver = await TestReceiver.start();
        const policiesDir = receiverPolicies(receiver, (policy) => {

            policy.delivery.concurrency = 5;
        });
        const writer = await webhooksServer(receiver, { policiesDir, start: false });
        const one = await webhooksServer(receiver, { policiesDir, shareWith: writer });
        const two = await webhooksServer(receiver, { policiesDir, shareWith: writer });
        try {
            const family = await familyWithEndpoint(writer, receiver);
            for (let i = 0; i < eventCount; i++) {
                await createPerson(family, `Person ${i}`);
            }

            const byEvent = await eventually(async () => {

                const seen = deliveryIdsByEvent(receiver.received, family.familyLongId);
                return seen.size === eventCount && seen;
            }, 30_000);
            await new Promise((resolve) => setTimeout(resolve, 500));

            expect(receiver.received.filter((request) => request.body.includes(family.familyLongId))).to.have.length(eventCount);
            expect([...byEvent.values()].every((ids) => ids.size === 1)).to.be.true();
        }
        finally {
            await Promise.all([one.stop(), two.stop()]);
            await writer.stop();
            await receiver.close();
        }
    });

    it('queues an event committed below the cursor (a slow transaction\'s), found by the sweep', async () => {

        const receiver = await TestReceiver.start();
        const server = await webhooksServer(receiver);
        try {
            const family = await familyWithEndpoint(server, receiver);
            const { models: { ChangeEvent }, sequelize } = server.app.services;
            // Two ids as writers get them (on PostgreSQL from the sequence, so later writes do not collide).
            const newest = testVariant === 'postgres' ?
                Number((await sequelize.query<{ id: string }>("SELECT nextval('change_events_id_seq') AS id, nextval('change_events_id_seq')", { type: QueryTypes.SELECT }))[0].id) - 1 :
                Number(await ChangeEvent.max('id'));
            const event = (id: number) => ({ id, family_long_id: family.familyLongId, resource: 'persons', action: 'updated' as const, record_id: 'per_00000000000000000000', revision: id, occurred_at: new Date() });

            // Written straight to the log (no bus announcement): the sweep finds it, leaving a hole below.
            await ChangeEvent.create(event(newest + 2));
            await eventually(async () => receiver.received.some((request) => request.body.includes(`"id":${newest + 2},`)));
            await ChangeEvent.create(event(newest + 1));
            await eventually(async () => receiver.received.some((request) => request.body.includes(`"id":${newest + 1},`)));
            expect(receiver.received.filter((request) => request.body.includes(family.familyLongId))).to.have.length(2);
        }
        finally {
            await server.stop();
            await receiver.close();
        }
    });
    it('cleans up deliveries past the log retention, and fanned-out change events past the stream retention', async () => {

        const receiver = await TestReceiver.start();
        const server = await webhooksServer(receiver, { policiesDir: receiverPolicies(receiver, (policy) => {

            policy.schedules.cleanup = '* * * * * *';
        }) });

        try {
            const family = await familyWithEndpoint(server, receiver);
            await createPerson(family);
            const { models, sequelize } = server.app.services;
            const delivery = await eventually(async () => models.WebhookDelivery.findOne({ where: { endpoint_id: family.endpointId, status: 'delivered' } }));
            const days = (count: number) => new Date(Date.now() - count * 24 * 60 * 60 * 1000);

            // Past both retentions (30 days of log, 7 days of events as shipped): backdated.
            await sequelize.query('UPDATE webhook_deliveries SET created_at = :at WHERE id = :id', { replacements: { at: days(31), id: delivery.id } });
            await sequelize.query('UPDATE change_events SET occurred_at = :at WHERE id = :id', { replacements: { at: days(8), id: delivery.event_id } });
            const kept = await models.WebhookDelivery.create({ id: recordId('whd'), endpoint_id: family.endpointId, family_long_id: family.familyLongId, event_id: null, event_type: 'ping', payload: '{}', status: 'delivered' });

            await eventually(async () => await models.WebhookDelivery.count({ where: { id: delivery.id } }) === 0);
            expect(await models.WebhookAttempt.count({ where: { delivery_id: delivery.id } })).to.equal(0);
            await eventually(async () => await models.ChangeEvent.count({ where: { id: delivery.event_id! } }) === 0);
            expect(await models.WebhookDelivery.count({ where: { id: kept.id } })).to.equal(1);
        }
        finally {
            await server.stop();
            await receiver.close();
        }
    });
});
