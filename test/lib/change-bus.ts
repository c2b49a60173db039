import Crypto from 'crypto';

import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { LocalChangeBus, openFamilyChangeLog, RedisChangeBus, type ChangeBatch } from '../../lib/change-bus';
import { connectRedis, type RedisClient } from '../../lib/redis';
import { expectSuccess, newPerson } from '../gateway/requests';
import { familyWithKey, testRedisUrl, testServer } from '../helpers/server';
import { until } from '../plugins/stream/client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const batch = (id: number, previous = id - 1): ChangeBatch => ({
    family_long_id: 'fam_test',
    previous_id: previous,
    events: [{ id, resource: 'persons', action: 'created', record_id: `per_${id}`, family_long_id: 'fam_test', revision: 1, occurred_at: new Date(0).toISOString() }]
});

describe('LocalChangeBus', () => {

    it('hands every published batch to every listener, until it unsubscribes', async () => {

        const bus = new LocalChangeBus(() => undefined);
        const first: ChangeBatch[] = [];
        const second: ChangeBatch[] = [];
        const stopFirst = await bus.subscribe((received) => first.push(received));
        await bus.subscribe((received) => second.push(received));
        expect(bus.listenerCount()).to.equal(2);

        bus.publish(batch(1));
        stopFirst();
        bus.publish(batch(2));

        expect(first).to.equal([batch(1)]);
        expect(second).to.equal([batch(1), batch(2)]);
        expect(bus.listenerCount()).to.equal(1);
    });

    it('logs a failing listener and still serves the others; the publisher never sees the failure', async () => {

        const logged: string[] = [];
        const bus = new LocalChangeBus((tags, message) => logged.push(`${tags.join(',')} ${message}`));
        const received: ChangeBatch[] = [];
        await bus.subscribe(() => {

            throw new Error('listener fault');
        });
        await bus.subscribe((delivered) => received.push(delivered));

        expect(() => bus.publish(batch(1))).to.not.throw();
        expect(received).to.have.length(1);
        expect(logged[0]).to.startWith('change-bus,error a change listener failed: Error: listener fault');
    });
});

describe('RedisChangeBus', { skip: !testRedisUrl }, () => {

    const clients: RedisClient[] = [];
    const buses: RedisChangeBus[] = [];

    after(async () => {

        await Promise.all(buses.map((bus) => bus.close()));
        await Promise.all(clients.map((client) => client.quit()));
    });

    /** A bus of its own instance (client), on `prefix`. */
    async function instanceBus(prefix: string): Promise<RedisChangeBus> {

        const client = await connectRedis(testRedisUrl!, () => undefined);
        clients.push(client);
        const bus = new RedisChangeBus(client, prefix, () => undefined);
        buses.push(bus);
        return bus;
    }

    it('carries a batch published by one instance to the listeners of every instance, the publisher\'s own included', async () => {

        const prefix = `fr-bus-${Crypto.randomBytes(4).toString('hex')}:`;
        const [a, b] = [await instanceBus(prefix), await instanceBus(prefix)];
        const onA: ChangeBatch[] = [];
        const onB: ChangeBatch[] = [];
        await a.subscribe((received) => onA.push(received));
        await b.subscribe((received) => onB.push(received));

        // Listening once subscribe() resolves: nothing published right after it is lost.
        a.publish(batch(1));
        a.publish(batch(2));
        await until(() => onA.length === 2 && onB.length === 2, 'both batches on both instances');
        expect(onB).to.equal([batch(1), batch(2)]);
        expect(onA).to.equal(onB);
    });

    it('keeps deployments with different prefixes apart', async () => {

        const [a, b] = [await instanceBus(`fr-bus-${Crypto.randomBytes(4).toString('hex')}:`), await instanceBus(`fr-bus-${Crypto.randomBytes(4).toString('hex')}:`)];
        const onB: ChangeBatch[] = [];
        const onA: ChangeBatch[] = [];
        await b.subscribe((received) => onB.push(received));
        await a.subscribe((received) => onA.push(received));

        a.publish(batch(1));
        await until(() => onA.length === 1, 'the batch on its own deployment');
        b.publish(batch(2));
        await until(() => onB.length === 1, 'the other deployment\'s own batch');
        expect(onB).to.equal([batch(2)]);
    });
});

describe('openFamilyChangeLog()', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    /** The batches of one family that reach this process. */
    async function batchesOf(familyLongId: string): Promise<{ batches: ChangeBatch[]; stop: () => void }> {

        const batches: ChangeBatch[] = [];
        const stop = await server.app.services.changeBus.subscribe((received) => {

            if (received.family_long_id === familyLongId) {
                batches.push(received);
            }
        });

        return { batches, stop };
    }

    it('publishes a transaction\'s events as one batch once it commits, chained to the family\'s previous event', async () => {

        const family = await familyWithKey(server);
        const { batches, stop } = await batchesOf(family.familyLongId);
        const tree = JSON.parse((await family.inject('POST', '/api/v1/trees', { name: 'Tree' })).payload).data.id;
        expectSuccess(await family.inject('POST', '/api/v1/persons', { ...newPerson, tree_id: tree }), 201);
        expectSuccess(await family.inject('DELETE', `/api/v1/trees/${tree}`));
        await until(() => batches.length === 3, 'three batches');
        stop();

        const logged = await server.app.services.models.ChangeEvent.findAll({ where: { family_long_id: family.familyLongId }, order: [['id', 'ASC']] });
        expect(batches.map((received) => received.previous_id)).to.equal([0, logged[0].id, logged[1].id]);
        expect(batches.map((received) => received.events.map((event) => event.id))).to.equal([[logged[0].id], [logged[1].id], [logged[2].id, logged[3].id]]);
        expect(batches[2].events.map((event) => `${event.resource}.${event.action}`)).to.equal(['persons.updated', 'trees.deleted']);
    });

    it('publishes nothing when the transaction rolls back', async () => {

        const family = await familyWithKey(server);
        const { batches, stop } = await batchesOf(family.familyLongId);
        const { models, changeBus, transaction } = server.app.services;

        await expect(transaction(async (inTransaction) => {

            const changeLog = await openFamilyChangeLog({ models, changeBus, familyLongId: family.familyLongId }, inTransaction);
            await changeLog.record({ resource: 'persons', action: 'created', record_id: 'per_rolledback', revision: 1 });
            throw new Error('rolled back');
        })).to.reject('rolled back');

        expectSuccess(await family.inject('POST', '/api/v1/persons', newPerson), 201);
        await until(() => batches.length === 1, 'the committed batch');
        stop();
        expect(batches[0].events[0].record_id).to.not.equal('per_rolledback');
        expect(batches[0].previous_id).to.equal(0);
    });
});
