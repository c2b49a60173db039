import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { QueryTypes } from 'sequelize';
import { Webhook } from 'standardwebhooks';

import { ServiceError, type ErrorCode } from '../../../lib/errors';
import { familyWithKey } from '../../helpers/server';
import { answer, TestReceiver } from './helpers/receiver';
import { createPerson, eventually, familyWithEndpoint, receiverPolicies, webhooksServer } from './helpers/setup';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

async function refusedWith(work: Promise<unknown>, code: ErrorCode): Promise<string> {

    const error = await expect(work).to.reject(ServiceError);
    expect(error.code).to.equal(code);
    return error.message;
}

describe('webhook endpoint services', () => {

    let receiver: TestReceiver;
    let server: Server;
    const overlapSeconds = 1.5;

    before(async () => {

        receiver = await TestReceiver.start();
        server = await webhooksServer(receiver, { policiesDir: receiverPolicies(receiver, (policy) => {

            policy.endpoints.secret_rotation_overlap_seconds = overlapSeconds;
        }) });
    });

    after(async () => {

        await server.stop();
        await receiver.close();
    });

    const webhooks = () => server.plugins.webhooks;

    it('shows the secret once and keeps it only encrypted', async () => {

        const family = await familyWithKey(server);
        const { endpoint, secret } = await webhooks().createEndpoint(family.familyLongId, { url: receiver.url(), description: '  Sync  ', resources: ['persons', 'trees'] }, 'test');

        expect(secret).to.match(/^whsec_/);
        expect((endpoint).get({ plain: true })).to.include({ description: 'Sync', active: true, secret_last_four: secret.slice(-4), created_by: 'test' });
        const [row] = await server.app.services.sequelize.query<Record<string, string>>('SELECT * FROM webhook_endpoints WHERE id = :id', { replacements: { id: endpoint.id }, type: QueryTypes.SELECT });
        expect(JSON.stringify(row)).to.not.contain(secret.slice(6, 30));
        expect(row.secret_encrypted).to.startWith('v1.');

        const [listed] = await webhooks().listEndpoints(family.familyLongId);
        expect(listed.id).to.equal(endpoint.id);
    });

    it('refuses what the family cannot have', async () => {

        const family = await familyWithKey(server, { resources: ['persons', 'trees'] });
        const url = receiver.url();
        const create = (input: Partial<{ url: string; resources: string[] }>) => webhooks().createEndpoint(family.familyLongId, { url, resources: ['persons'], ...input }, 'test');

        expect(await refusedWith(create({ resources: ['finances'] }), 'invalid_request')).to.equal('resources: some of persons, trees, each once (not exposed: finances).');
        expect(await refusedWith(create({ resources: [] }), 'invalid_request')).to.startWith('resources:');
        expect(await refusedWith(create({ url: 'http://receiver.test/hook' }), 'invalid_request')).to.equal('url: The URL must use https, not http.');
        expect(await refusedWith(create({ url: 'https://10.0.0.1/hook' }), 'invalid_request')).to.equal('url: The URL names 10.0.0.1, a private address, not a public one.');
        expect(await refusedWith(webhooks().createEndpoint('fam_missing', { url, resources: ['persons'] }, 'test'), 'not_found')).to.equal('No family fam_missing.');

        const lite = await familyWithKey(server, { plan: 'lite' });
        expect(await refusedWith(webhooks().createEndpoint(lite.familyLongId, { url, resources: ['persons'] }, 'test'), 'plan_not_eligible')).to.equal('The Lite plan does not include webhooks.');

        const off = await familyWithKey(server);
        await server.app.services.models.Family.update({ api_enabled: false }, { where: { family_long_id: off.familyLongId } });
        await refusedWith(webhooks().createEndpoint(off.familyLongId, { url, resources: ['persons'] }, 'test'), 'api_not_enabled');
    });

    it('allows as many endpoints as the plan says', async () => {

        const family = await familyWithKey(server);
        for (let i = 0; i < 5; i++) {
            await webhooks().createEndpoint(family.familyLongId, { url: receiver.url(`/hook${i}`), resources: ['persons'] }, 'test');
        }

        expect(await refusedWith(webhooks().createEndpoint(family.familyLongId, { url: receiver.url(), resources: ['persons'] }, 'test'), 'quota_exceeded')).to.equal('The Family plan allows 5 webhook endpoints; remove one first.');
    });

    it('treats another family\'s endpoint as unknown', async () => {

        const owner = await familyWithEndpoint(server, receiver);
        const other = await familyWithKey(server);
        const id = owner.endpointId;

        const attempts = [
            () => webhooks().findEndpoint(other.familyLongId, id),
            () => webhooks().updateEndpoint(other.familyLongId, id, { description: 'mine now' }),
            () => webhooks().rotateSecret(other.familyLongId, id),
            () => webhooks().disableEndpoint(other.familyLongId, id, 'test'),
            () => webhooks().enableEndpoint(other.familyLongId, id),
            () => webhooks().removeEndpoint(other.familyLongId, id),
            () => webhooks().listDeliveries(other.familyLongId, id),
            () => webhooks().ping(other.familyLongId, id)
        ];
        for (const attempt of attempts) {
            expect(await refusedWith(attempt(), 'not_found')).to.equal(`No webhook endpoint ${id}.`);
        }

        expect((await webhooks().findEndpoint(owner.familyLongId, id)).description).to.be.null();
    });

    it('updates, disables, enables and removes an endpoint', async () => {

        const family = await familyWithEndpoint(server, receiver);
        const updated = await webhooks().updateEndpoint(family.familyLongId, family.endpointId, { description: 'CRM', resources: ['persons', 'events'] });
        expect((updated).get({ plain: true })).to.include({ description: 'CRM', resources: ['persons', 'events'] });
        await refusedWith(webhooks().updateEndpoint(family.familyLongId, family.endpointId, { url: 'https://localhost/x' }), 'invalid_request');

        const disabled = await webhooks().disableEndpoint(family.familyLongId, family.endpointId, 'usr_test');
        expect((disabled).get({ plain: true })).to.include({ active: false, disabled_by: 'usr_test', disabled_reason: 'Disabled by a family manager.' });
        await createPerson(family);
        await new Promise((resolve) => setTimeout(resolve, 1200));
        expect(receiver.received.filter((request) => request.body.includes(family.familyLongId))).to.have.length(0);

        expect((await webhooks().enableEndpoint(family.familyLongId, family.endpointId)).get({ plain: true })).to.include({ active: true, disabled_reason: null });
        await webhooks().removeEndpoint(family.familyLongId, family.endpointId);
        await refusedWith(webhooks().findEndpoint(family.familyLongId, family.endpointId), 'not_found');
    });

    it('signs with both secrets during a rotation\'s overlap, and with the new one only after it', async () => {

        const family = await familyWithEndpoint(server, receiver);
        const { secret: newSecret, endpoint } = await webhooks().rotateSecret(family.familyLongId, family.endpointId);
        expect(newSecret).to.not.equal(family.secret);
        expect(endpoint.previous_secret_expires_at!.getTime()).to.be.about(Date.now() + overlapSeconds * 1000, 500);

        const received = () => receiver.received.filter((request) => request.body.includes(family.familyLongId));
        await createPerson(family);
        const [during] = await eventually(async () => received().length === 1 && received());
        const headers = during.headers as Record<string, string>;
        expect(headers['webhook-signature'].split(' ')).to.have.length(2);
        expect(new Webhook(newSecret).verify(during.body, headers)).to.exist();
        expect(new Webhook(family.secret).verify(during.body, headers)).to.exist();
        expect(headers['x-service-signature']).to.exist();
        expect(headers['x-service-signature-previous']).to.exist();

        await new Promise((resolve) => setTimeout(resolve, overlapSeconds * 1000));
        await createPerson(family, 'Charles');
        const [, after] = await eventually(async () => received().length === 2 && received());
        const afterHeaders = after.headers as Record<string, string>;
        expect(afterHeaders['webhook-signature'].split(' ')).to.have.length(1);
        expect(new Webhook(newSecret).verify(after.body, afterHeaders)).to.exist();
        expect(() => new Webhook(family.secret).verify(after.body, afterHeaders)).to.throw('No matching signature found');
        expect(afterHeaders['x-service-signature-previous']).to.not.exist();
    });

    it('sends a test delivery at once and reports how it went, without retrying it', async () => {

        const family = await familyWithEndpoint(server, receiver);
        const ok = await webhooks().ping(family.familyLongId, family.endpointId);
        expect(ok.outcome).to.include({ delivered: true, address: '127.0.0.1' });
        expect(ok.outcome.result.statusCode).to.equal(204);
        expect((ok.delivery).get({ plain: true })).to.include({ event_type: 'ping', status: 'delivered', event_id: null });

        const ping = receiver.received.find((request) => request.headers['x-service-delivery'] === ok.delivery.id)!;
        expect(JSON.parse(ping.body)).to.include({ type: 'ping', family_long_id: family.familyLongId, endpoint_id: family.endpointId });
        expect(new Webhook(family.secret).verify(ping.body, ping.headers as Record<string, string>)).to.exist();

        receiver.respondWith(answer(500, {}, 'nope'));
        const failed = await webhooks().ping(family.familyLongId, family.endpointId);
        expect(failed.outcome.delivered).to.be.false();
        expect(failed.outcome.result).to.include({ statusCode: 500, excerpt: 'nope' });
        expect(failed.delivery.status).to.equal('failed');
        await new Promise((resolve) => setTimeout(resolve, 800));
        expect(receiver.received.filter((request) => request.headers['x-service-delivery'] === failed.delivery.id)).to.have.length(1);
    });

    it('redelivers one delivery now with the same delivery id', async () => {

        const family = await familyWithEndpoint(server, receiver);
        await createPerson(family);
        const delivery = await eventually(async () => {

            const [first] = (await webhooks().listDeliveries(family.familyLongId, family.endpointId)).deliveries;
            return first?.status === 'delivered' && first;
        });

        const again = await webhooks().redeliver(family.familyLongId, family.endpointId, delivery.id);
        expect(again.outcome.delivered).to.be.true();
        expect((again.delivery).get({ plain: true })).to.include({ id: delivery.id, status: 'delivered', attempts: 2 });
        expect(receiver.received.filter((request) => request.headers['x-service-delivery'] === delivery.id)).to.have.length(2);

        const { attempts } = await webhooks().getDelivery(family.familyLongId, family.endpointId, delivery.id);
        expect(attempts.map((attempt) => [attempt.attempt, attempt.trigger])).to.equal([[1, 'queue'], [2, 'redeliver']]);
        await refusedWith(webhooks().redeliver(family.familyLongId, family.endpointId, 'whd_unknown000000'), 'not_found');
    });

    it('pages an endpoint\'s deliveries, newest first', async () => {

        const family = await familyWithEndpoint(server, receiver);
        for (let i = 0; i < 3; i++) {
            await webhooks().ping(family.familyLongId, family.endpointId);
        }

        const first = await webhooks().listDeliveries(family.familyLongId, family.endpointId, { limit: 2 });
        expect(first.deliveries).to.have.length(2);
        const second = await webhooks().listDeliveries(family.familyLongId, family.endpointId, { limit: 2, cursor: first.nextCursor! });
        expect(second.deliveries).to.have.length(1);
        expect(second.nextCursor).to.be.null();
        const ids = [...first.deliveries, ...second.deliveries].map((delivery) => delivery.id);
        expect(new Set(ids).size).to.equal(3);
        await refusedWith(webhooks().listDeliveries(family.familyLongId, family.endpointId, { cursor: 'nonsense' }), 'invalid_request');
    });
});

describe('endpoint health', () => {

    it('disables an endpoint whose deliveries have all failed for the policy\'s time, and tells its managers', async () => {

        const receiver = await TestReceiver.start();
        const server = await webhooksServer(receiver, { policiesDir: receiverPolicies(receiver, (policy) => {

            policy.endpoints.disable_after_failing_seconds = 1;
            policy.retries.schedule_seconds = [0, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4];
        }) });

        try {
            receiver.respondWith(...Array.from({ length: 20 }, () => answer(500)));
            const family = await familyWithEndpoint(server, receiver);
            await createPerson(family);

            const endpoint = await eventually(async () => {

                const found = await server.plugins.webhooks.findEndpoint(family.familyLongId, family.endpointId);
                return !found.active && found;
            });
            expect((endpoint).get({ plain: true })).to.include({ disabled_by: 'system', disabled_reason: 'Every delivery attempt failed for 1 second.' });
            expect(endpoint.failing_since).to.be.a.date();

            const audit = await server.app.services.models.AuditEvent.findOne({ where: { family_long_id: family.familyLongId, action: 'webhook.disable' } });
            expect(audit!.detail).to.equal('Disabled automatically. Every delivery attempt failed for 1 second.');

            // Enabling starts a new run: the failures before count no more.
            const enabled = await server.plugins.webhooks.enableEndpoint(family.familyLongId, family.endpointId);
            expect(enabled.failing_since).to.be.null();
        }
        finally {
            await server.stop();
            await receiver.close();
        }
    });
});
