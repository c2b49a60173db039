import Crypto from 'crypto';
import type { ServerResponse } from 'http';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { Webhook } from 'standardwebhooks';

import { suspendFamily, unsuspendFamily } from '../../../lib/accounts/families';
import { projectRoot } from '../../../lib/config';
import { familyWithKey } from '../../helpers/server';
import { answer, hang, TestReceiver, type ReceivedRequest, type Responder } from './helpers/receiver';
import { createPerson, eventually, familyWithEndpoint, receiverAndServer, receiverPolicies, scriptedResolver, stopReceiverAndServer, webhooksServer } from './helpers/setup';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The receiver's side of DESIGN.md §5, written from its text alone. */
function designSignatureValid(secret: string, request: ReceivedRequest): boolean {

    const timestamp = request.headers['x-service-timestamp'] as string;
    const expected = `sha256=${Crypto.createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`;
    const given = request.headers['x-service-signature'] as string;
    return given.length === expected.length && Crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

describe('webhook delivery', () => {

    let receiver: TestReceiver;
    let server: Server;

    before(async () => {

        ({ receiver, server } = await receiverAndServer());
    });

    after(() => stopReceiverAndServer({ receiver, server }));

    /** The requests of one endpoint's deliveries that reached the receiver. */
    const requestsOf = (familyLongId: string) => receiver.received.filter((request) => request.body.includes(familyLongId));
    const deliveriesOf = (familyLongId: string, endpointId: string) => server.plugins.webhooks.listDeliveries(familyLongId, endpointId);

    it('POSTs the change event, signed as DESIGN.md §5 says and as Standard Webhooks verifiers expect', async () => {

        const family = await familyWithEndpoint(server, receiver);
        const personId = await createPerson(family);

        const [request] = await eventually(async () => requestsOf(family.familyLongId).length > 0 && requestsOf(family.familyLongId));
        const body = JSON.parse(request.body);
        expect(body).to.include({ type: 'persons.created', resource: 'persons', action: 'created', record_id: personId, family_long_id: family.familyLongId, revision: 1 });
        expect(body.id).to.be.a.number();
        expect(Object.keys(body).sort()).to.equal(['action', 'family_long_id', 'id', 'occurred_at', 'record_id', 'resource', 'revision', 'type']);

        expect(request.method).to.equal('POST');
        expect(request.path).to.equal('/hook');
        expect(request.headers).to.include({
            host: `receiver.test:${receiver.port}`,
            'content-type': 'application/json',
            'user-agent': 'FamilyRecords-Webhooks/1',
            'x-service-event': 'persons.created'
        });
        expect(request.headers['x-service-delivery']).to.match(/^whd_/);
        expect(request.headers['webhook-id']).to.equal(request.headers['x-service-delivery']);
        expect(Number(request.headers['x-service-timestamp'])).to.be.about(Date.now() / 1000, 10);
        expect(request.headers['webhook-timestamp']).to.equal(request.headers['x-service-timestamp']);
        expect(request.headers['x-service-signature-previous']).to.not.exist();

        expect(family.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect(designSignatureValid(family.secret, request)).to.be.true();
        expect(new Webhook(family.secret).verify(request.body, request.headers as Record<string, string>)).to.equal(body);
        expect(() => new Webhook(`whsec_${Crypto.randomBytes(32).toString('base64')}`).verify(request.body, request.headers as Record<string, string>)).to.throw('No matching signature found');

        const { deliveries } = await eventually(async () => {

            const page = await deliveriesOf(family.familyLongId, family.endpointId);
            return page.deliveries[0]?.status === 'delivered' && page;
        });
        expect(deliveries[0].get({ plain: true })).to.include({ id: request.headers['x-service-delivery'] as string, event_type: 'persons.created', status: 'delivered', attempts: 1, last_status_code: 204 });
    });

    it('delivers only the resources the endpoint is for', async () => {

        const family = await familyWithEndpoint(server, receiver, ['trees']);
        await createPerson(family);
        const tree = await family.inject('POST', '/api/v1/trees', { name: 'Lovelace' });
        expect(tree.statusCode).to.equal(201);

        const requests = await eventually(async () => requestsOf(family.familyLongId).length > 0 && requestsOf(family.familyLongId));
        expect(requests.map((request) => request.headers['x-service-event'])).to.equal(['trees.created']);
    });

    it('retries after a 500 with the same delivery id, and logs every attempt', async () => {

        const family = await familyWithEndpoint(server, receiver);
        receiver.respondWith(answer(500, {}, 'database is down'));
        await createPerson(family);

        const requests = await eventually(async () => requestsOf(family.familyLongId).length >= 2 && requestsOf(family.familyLongId));
        expect(requests[1].headers['x-service-delivery']).to.equal(requests[0].headers['x-service-delivery']);
        expect(requests[1].body).to.equal(requests[0].body);

        const deliveryId = requests[0].headers['x-service-delivery'] as string;
        const { delivery, attempts } = await eventually(async () => {

            const found = await server.plugins.webhooks.getDelivery(family.familyLongId, family.endpointId, deliveryId);
            return found.delivery.status === 'delivered' && found;
        });
        expect(delivery.attempts).to.equal(2);
        expect(attempts.map((attempt) => [attempt.attempt, attempt.status_code, attempt.response_excerpt])).to.equal([[1, 500, 'database is down'], [2, 204, '']]);
        expect(attempts[0].get({ plain: true })).to.include({ trigger: 'queue', error: null, address: '127.0.0.1' });
        expect(attempts[0].latency_ms).to.be.a.number();
    });

    it('retries after the response timeout', async () => {

        const family = await familyWithEndpoint(server, receiver);
        receiver.respondWith(hang);
        await createPerson(family);

        const requests = await eventually(async () => requestsOf(family.familyLongId).length >= 2 && requestsOf(family.familyLongId));
        const { attempts } = await eventually(async () => {

            const found = await server.plugins.webhooks.getDelivery(family.familyLongId, family.endpointId, requests[0].headers['x-service-delivery'] as string);
            return found.attempts.length >= 2 && found;
        });
        expect(attempts[0].get({ plain: true })).to.include({ status_code: null, error: 'no response within 1000 ms' });
        expect(attempts[1].get({ plain: true })).to.include({ status_code: 204, error: null });
    });

    it('logs a response body holding NUL bytes (a gzip body, say) and counts the delivery delivered, once', async () => {

        const family = await familyWithEndpoint(server, receiver);
        receiver.respondWith((response) => response.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x6f, 0x6b])));
        await createPerson(family);

        const [request] = await eventually(async () => requestsOf(family.familyLongId).length > 0 && requestsOf(family.familyLongId));
        const { delivery, attempts } = await eventually(async () => {

            const found = await server.plugins.webhooks.getDelivery(family.familyLongId, family.endpointId, request.headers['x-service-delivery'] as string);
            return found.attempts.length > 0 && found;
        }, 3000);
        expect(delivery.get({ plain: true })).to.include({ status: 'delivered', attempts: 1 });
        expect(attempts[0].response_excerpt).to.equal('\x1f\uFFFD\b\uFFFD\uFFFDok');
        expect(requestsOf(family.familyLongId)).to.have.length(1);
    });

    it('waits as long as Retry-After asks before the next attempt', async () => {

        const family = await familyWithEndpoint(server, receiver);
        receiver.respondWith(answer(503, { 'retry-after': '2' }));
        await createPerson(family);

        await eventually(async () => requestsOf(family.familyLongId).length >= 1);
        const firstAt = Date.now();
        await eventually(async () => requestsOf(family.familyLongId).length >= 2, 10_000);
        // The schedule alone would retry after 0.3 s.
        expect(Date.now() - firstAt).to.be.at.least(1800);
    });

    it('disables the endpoint on 410 Gone and tells its managers through the audit log', async () => {

        const family = await familyWithEndpoint(server, receiver);
        receiver.respondWith(answer(410));
        await createPerson(family);

        const endpoint = await eventually(async () => {

            const found = await server.plugins.webhooks.findEndpoint(family.familyLongId, family.endpointId);
            return !found.active && found;
        });
        expect(endpoint.get({ plain: true })).to.include({ disabled_by: 'system', disabled_reason: 'The endpoint answered 410 Gone: it asked for no more deliveries.' });

        const { deliveries } = await deliveriesOf(family.familyLongId, family.endpointId);
        expect(deliveries[0].get({ plain: true })).to.include({ status: 'failed', last_status_code: 410, attempts: 1 });

        const audit = await server.app.services.models.AuditEvent.findOne({ where: { family_long_id: family.familyLongId, action: 'webhook.disable' } });
        expect(audit!.get({ plain: true })).to.include({ actor_id: null, target: family.endpointId });

        // Disabled: the next change is not delivered.
        await createPerson(family, 'Charles');
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(requestsOf(family.familyLongId)).to.have.length(1);
    });

    it('never follows a redirect: a 3xx is a failed attempt', async () => {

        const family = await familyWithEndpoint(server, receiver);
        receiver.respondWith(answer(307, { location: receiver.url('/elsewhere') }), answer(307, { location: receiver.url('/elsewhere') }));
        await createPerson(family);

        const requests = await eventually(async () => requestsOf(family.familyLongId).length >= 3 && requestsOf(family.familyLongId));
        expect(requests.map((request) => request.path)).to.equal(['/hook', '/hook', '/hook']);
        expect(receiver.received.some((request) => request.path === '/elsewhere')).to.be.false();

        const { attempts } = await server.plugins.webhooks.getDelivery(family.familyLongId, family.endpointId, requests[0].headers['x-service-delivery'] as string);
        expect(attempts[0].get({ plain: true })).to.include({ status_code: 307, error: `redirect to ${receiver.url('/elsewhere')} not followed: point the endpoint at the final URL` });
    });

    it('records the other outcomes of a batch when an endpoint is removed while its delivery is under way', async () => {

        const removed = await familyWithEndpoint(server, receiver);
        const kept = await familyWithEndpoint(server, receiver);
        const held: ServerResponse[] = [];
        const hold: Responder = (response) => held.push(response);
        receiver.respondWith(hold, hold);
        await createPerson(removed);
        await createPerson(kept);
        await eventually(async () => held.length === 2);

        await server.plugins.webhooks.removeEndpoint(removed.familyLongId, removed.endpointId);
        // Both answered at once: their outcomes are written in one batch.
        held.forEach((response) => response.writeHead(200).end());

        const { deliveries } = await eventually(async () => {

            const page = await deliveriesOf(kept.familyLongId, kept.endpointId);
            return page.deliveries[0]?.status === 'delivered' && page;
        }, 3000);
        expect(deliveries[0].get({ plain: true })).to.include({ attempts: 1, last_status_code: 200 });
        expect(requestsOf(kept.familyLongId)).to.have.length(1);
    });

    it('sends no retry while the family is suspended, and carries on once it is not', async () => {

        const family = await familyWithEndpoint(server, receiver);
        const { accounts } = server.app.services;
        receiver.respondWith(answer(500));
        await createPerson(family);
        const [first] = await eventually(async () => requestsOf(family.familyLongId).length > 0 && requestsOf(family.familyLongId));
        await suspendFamily(accounts, family.familyLongId, 'Unusual traffic', 'test');

        // The schedule alone would retry after 0.3 s.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect(requestsOf(family.familyLongId)).to.have.length(1);

        await unsuspendFamily(accounts, family.familyLongId);
        const requests = await eventually(async () => requestsOf(family.familyLongId).length > 1 && requestsOf(family.familyLongId));
        expect(requests[1].headers['x-service-delivery']).to.equal(first.headers['x-service-delivery']);
    });

    it('gives a delivery up once the schedule is spent', async () => {

        const family = await familyWithEndpoint(server, receiver);
        receiver.respondWith(...Array.from({ length: 4 }, () => answer(500)));
        await createPerson(family);

        const { deliveries } = await eventually(async () => {

            const page = await deliveriesOf(family.familyLongId, family.endpointId);
            return page.deliveries[0]?.status === 'failed' && page;
        });
        expect(deliveries[0].get({ plain: true })).to.include({ attempts: 4, last_status_code: 500 });
        expect(requestsOf(family.familyLongId)).to.have.length(4);
    });
});

describe('webhook redelivery by hand beside the retry schedule', () => {

    let receiver: TestReceiver;
    let server: Server;

    before(async () => {

        receiver = await TestReceiver.start();
        // Retries far enough apart for a manager to redeliver in between: three attempts of the queue's in all.
        const policiesDir = receiverPolicies(receiver, (policy) => {

            policy.retries.schedule_seconds = [0, 1.5, 1.5];
        });
        server = await webhooksServer(receiver, { policiesDir });
    });

    after(() => stopReceiverAndServer({ receiver, server }));

    const requestsOf = (familyLongId: string) => receiver.received.filter((request) => request.body.includes(familyLongId));

    /** A delivery whose first attempt failed with a 500 and is recorded, its retry not yet due. */
    async function failedOnce() {

        const family = await familyWithEndpoint(server, receiver);
        receiver.respondWith(answer(500));
        await createPerson(family);
        const delivery = await eventually(async () => {

            const [first] = (await server.plugins.webhooks.listDeliveries(family.familyLongId, family.endpointId)).deliveries;
            return first?.last_status_code === 500 && first;
        });
        return { family, delivery };
    }

    it('keeps every retry of the schedule, at its time, when a manager redelivers by hand in between, and logs that attempt as manual', async () => {

        const { family, delivery } = await failedOnce();
        receiver.respondWith(answer(500), answer(500), answer(500));
        const manual = await server.plugins.webhooks.redeliver(family.familyLongId, family.endpointId, delivery.id);
        expect(manual.outcome.delivered).to.be.false();
        expect(manual.delivery.get({ plain: true })).to.include({ status: 'pending', attempts: 2, manual_attempts: 1, next_attempt_at: delivery.next_attempt_at });

        const { delivery: givenUp, attempts } = await eventually(async () => {

            const found = await server.plugins.webhooks.getDelivery(family.familyLongId, family.endpointId, delivery.id);
            return found.delivery.status === 'failed' && found;
        });
        expect(attempts.map((attempt) => [attempt.attempt, attempt.trigger, attempt.status_code])).to.equal([[1, 'queue', 500], [2, 'redeliver', 500], [3, 'queue', 500], [4, 'queue', 500]]);
        expect(givenUp.get({ plain: true })).to.include({ attempts: 4, manual_attempts: 1 });
        expect(requestsOf(family.familyLongId)).to.have.length(4);
    });

    it('ends the delivery when a redelivery by hand succeeds: no retry follows', async () => {

        const { family, delivery } = await failedOnce();
        const manual = await server.plugins.webhooks.redeliver(family.familyLongId, family.endpointId, delivery.id);
        expect(manual.outcome.delivered).to.be.true();
        expect(manual.delivery.get({ plain: true })).to.include({ status: 'delivered', attempts: 2, manual_attempts: 1, next_attempt_at: null });

        // Past the time the retry was due.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        expect(requestsOf(family.familyLongId)).to.have.length(2);
        expect((await server.plugins.webhooks.getDelivery(family.familyLongId, family.endpointId, delivery.id)).delivery.status).to.equal('delivered');
    });
});

describe('webhook delivery with the shipped destination rules', () => {

    it('refuses at delivery a host that resolved to a public address when saved and resolves to loopback now (DNS rebinding)', async () => {

        const receiver = await TestReceiver.start();
        let resolvesTo = '93.184.216.34';
        const server = await webhooksServer(receiver, {
            policiesDir: Path.join(projectRoot, 'policies'),
            resolve: scriptedResolver({ 'rebind.example': () => resolvesTo })
        });

        try {
            const family = await familyWithKey(server);
            const { endpoint } = await server.plugins.webhooks.createEndpoint(family.familyLongId, { url: 'https://rebind.example/hook', resources: ['persons'] }, 'test');
            resolvesTo = '127.0.0.1';
            await createPerson(family);

            const delivery = await eventually(async () => {

                const [first] = (await server.plugins.webhooks.listDeliveries(family.familyLongId, endpoint.id)).deliveries;
                return first?.last_error ? first : undefined;
            });
            expect(delivery.last_error).to.equal('destination refused: The host rebind.example resolves to 127.0.0.1, a loopback address, not a public one.');
            expect(delivery.status).to.equal('pending');
            expect(receiver.received).to.have.length(0);
        }
        finally {
            await server.stop();
            await receiver.close();
        }
    });
});
