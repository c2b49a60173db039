import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { changePlan, disableApi, enableApi, suspendFamily, unsuspendFamily } from '../../../lib/accounts/families';
import { familyWithKey } from '../../helpers/server';
import { signedIn, type SiteClient } from '../site/client';
import type { TestReceiver } from './helpers/receiver';
import { createPerson, eventually, receiverAndServer, stopReceiverAndServer } from './helpers/setup';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('/manage/webhooks JSON routes', () => {

    let receiver: TestReceiver;
    let server: Server;

    before(async () => {

        ({ receiver, server } = await receiverAndServer());
    });

    after(() => stopReceiverAndServer({ receiver, server }));

    /** A JSON request with the client's cookies and, unless told not to, its CSRF token as X-CSRF-Token. */
    function json(client: SiteClient, method: string, url: string, payload?: object, options: { csrf?: boolean } = {}): Promise<ServerInjectResponse> {

        const headers: Record<string, string> = { cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
        if (options.csrf !== false) {
            headers['x-csrf-token'] = client.cookies.get('crumb') ?? '';
        }

        return server.inject({ method, url, headers, payload, remoteAddress: client.remoteAddress });
    }

    async function manager() {

        const family = await familyWithKey(server);
        return { family, client: await signedIn(server, { role: 'manager', familyLongId: family.familyLongId }) };
    }

    it('lets a family manager add, read, change, test, rotate, disable, enable and delete an endpoint', async () => {

        const { family, client } = await manager();

        const created = await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), description: 'CRM', resources: ['persons'] });
        expect(created.statusCode).to.equal(201);
        const endpoint = (created.result as any).data;
        expect(endpoint).to.include({ url: receiver.url(), description: 'CRM', resources: ['persons'], active: true, disabled_reason: null });
        expect(endpoint.secret).to.match(/^whsec_/);
        expect(endpoint.secret_hint).to.equal(`whsec_…${endpoint.secret.slice(-4)}`);

        const listed = await json(client, 'GET', '/manage/webhooks');
        expect((listed.result as any).data).to.equal([{ ...endpoint, secret: undefined }].map(({ secret, ...rest }) => rest));
        expect(JSON.stringify(listed.result)).to.not.contain(endpoint.secret);

        const read = await json(client, 'GET', `/manage/webhooks/${endpoint.id}`);
        expect((read.result as any).data.id).to.equal(endpoint.id);

        const changed = await json(client, 'PATCH', `/manage/webhooks/${endpoint.id}`, { resources: ['persons', 'trees'] });
        expect((changed.result as any).data.resources).to.equal(['persons', 'trees']);

        const ping = await json(client, 'POST', `/manage/webhooks/${endpoint.id}/ping`);
        expect(ping.statusCode).to.equal(200);
        expect((ping.result as any).data.attempt).to.include({ delivered: true, status_code: 204, error: null, address: '127.0.0.1' });
        expect((ping.result as any).data.delivery).to.include({ event_type: 'ping', status: 'delivered', attempts: 1, manual_attempts: 1 });

        const rotated = await json(client, 'POST', `/manage/webhooks/${endpoint.id}/rotate-secret`);
        expect((rotated.result as any).data.secret).to.match(/^whsec_/);
        expect((rotated.result as any).data.secret).to.not.equal(endpoint.secret);
        expect((rotated.result as any).data.previous_secret_expires_at).to.be.a.string();

        const disabled = await json(client, 'POST', `/manage/webhooks/${endpoint.id}/disable`, { reason: 'Maintenance' });
        expect((disabled.result as any).data).to.include({ active: false, disabled_reason: 'Maintenance' });
        const enabled = await json(client, 'POST', `/manage/webhooks/${endpoint.id}/enable`);
        expect((enabled.result as any).data).to.include({ active: true, disabled_reason: null });

        const deleted = await json(client, 'DELETE', `/manage/webhooks/${endpoint.id}`);
        expect(deleted.result).to.equal({ data: { id: endpoint.id, deleted: true } });
        expect((await json(client, 'GET', `/manage/webhooks/${endpoint.id}`)).statusCode).to.equal(404);

        const audited = await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: family.familyLongId }, order: [['id', 'ASC']] });
        expect(audited.map((event) => event.action).filter((action) => action.startsWith('webhook.'))).to.equal(['webhook.create', 'webhook.test', 'webhook.rotate_secret', 'webhook.disable', 'webhook.enable', 'webhook.delete']);
        expect(audited.find((event) => event.action === 'webhook.create')!.actor_id).to.equal(client.account.user.id);
    });

    it('deletes an endpoint once when two DELETEs arrive together: the other is a 404, and the audit log has one entry', async () => {

        const { client } = await manager();
        const endpoint = (await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), resources: ['persons'] }) as any).result.data;
        const answers = await Promise.all([json(client, 'DELETE', `/manage/webhooks/${endpoint.id}`), json(client, 'DELETE', `/manage/webhooks/${endpoint.id}`)]);
        expect(answers.map((answer) => answer.statusCode).sort()).to.equal([200, 404]);
        expect(answers.find((answer) => answer.statusCode === 404)!.result).to.include({ code: 'not_found' });
        expect(await server.app.services.models.AuditEvent.count({ where: { target: endpoint.id, action: 'webhook.delete' } })).to.equal(1);
    });

    it('shows the delivery log and redelivers one delivery', async () => {

        const { family, client } = await manager();
        const endpoint = (await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), resources: ['persons'] }) as any).result.data;
        await createPerson(family);

        const [delivery] = await eventually(async () => {

            const page = (await json(client, 'GET', `/manage/webhooks/${endpoint.id}/deliveries?limit=10`)).result as any;
            return page.data.length === 1 && page.data[0].status === 'delivered' && page.data;
        });
        expect(delivery).to.include({ event_type: 'persons.created', attempts: 1, manual_attempts: 0, last_status_code: 204, next_attempt_at: null });

        const redelivered = await json(client, 'POST', `/manage/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`);
        expect((redelivered.result as any).data.delivery).to.include({ id: delivery.id, attempts: 2, manual_attempts: 1 });

        const detail = (await json(client, 'GET', `/manage/webhooks/${endpoint.id}/deliveries/${delivery.id}`)).result as any;
        expect(detail.data.attempt_log.map((attempt: any) => [attempt.attempt, attempt.trigger, attempt.status_code])).to.equal([[1, 'queue', 204], [2, 'redeliver', 204]]);
    });

    it('answers 404, not 500, when the endpoint is removed while its test event or redelivery is under way', async () => {

        const { family, client } = await manager();
        const newEndpoint = async () => (await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), resources: ['persons'] }) as any).result.data.id as string;
        const [pinged, redelivered] = [await newEndpoint(), await newEndpoint()];
        await createPerson(family);
        const deliveryOf = async (endpointId: string) => ((await json(client, 'GET', `/manage/webhooks/${endpointId}/deliveries`)).result as any).data[0];
        const delivery = await eventually(async () => (await deliveryOf(pinged))?.status === 'delivered' && (await deliveryOf(redelivered))?.status === 'delivered' && deliveryOf(redelivered));

        for (const [endpointId, path] of [[pinged, 'ping'], [redelivered, `deliveries/${delivery.id}/redeliver`]]) {
            // The receiver answers once a manager (in another tab, say) has removed the endpoint.
            receiver.respondWith((response) => void json(client, 'DELETE', `/manage/webhooks/${endpointId}`).then((removed) => response.writeHead(removed.statusCode === 200 ? 204 : 500).end()));
            const attempt = await json(client, 'POST', `/manage/webhooks/${endpointId}/${path}`);
            expect(attempt.statusCode, path).to.equal(404);
            expect(attempt.result).to.include({ code: 'not_found', message: `No webhook endpoint ${endpointId}: it was removed while the attempt was under way.` });
        }
    });

    it('sends no test event or redelivery while the family\'s deliveries are held back', async () => {

        const { family, client } = await manager();
        const { accounts } = server.app.services;
        const endpoint = (await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), resources: ['persons'] }) as any).result.data;
        const delivered = (await json(client, 'POST', `/manage/webhooks/${endpoint.id}/ping`) as any).result.data.delivery;
        const sentBefore = receiver.received.length;

        const refusals = async () => [
            await json(client, 'POST', `/manage/webhooks/${endpoint.id}/ping`),
            await json(client, 'POST', `/manage/webhooks/${endpoint.id}/deliveries/${delivered.id}/redeliver`)
        ].map((response) => [response.statusCode, (response.result as any).code]);

        await suspendFamily(accounts, family.familyLongId, 'Unusual traffic', 'test');
        expect(await refusals()).to.equal([[403, 'family_suspended'], [403, 'family_suspended']]);
        await unsuspendFamily(accounts, family.familyLongId);

        await disableApi(accounts, family.familyLongId);
        expect(await refusals()).to.equal([[403, 'api_not_enabled'], [403, 'api_not_enabled']]);
        await enableApi(accounts, family.familyLongId, ['persons']);

        await changePlan(accounts, family.familyLongId, 'lite');
        expect(await refusals()).to.equal([[403, 'plan_not_eligible'], [403, 'plan_not_eligible']]);
        await changePlan(accounts, family.familyLongId, 'family');

        expect(receiver.received.length).to.equal(sentBefore);
        const deliveries = (await json(client, 'GET', `/manage/webhooks/${endpoint.id}/deliveries`)).result as any;
        expect(deliveries.data.map((delivery: any) => [delivery.id, delivery.attempts])).to.equal([[delivered.id, 1]]);

        expect((await json(client, 'POST', `/manage/webhooks/${endpoint.id}/ping`)).statusCode).to.equal(200);
    });

    it('answers in the API\'s error contract', async () => {

        const { client } = await manager();

        const refused = await json(client, 'POST', '/manage/webhooks', { url: 'https://169.254.169.254/latest', resources: ['persons'] });
        expect(refused.statusCode).to.equal(400);
        expect(refused.result).to.include({ code: 'invalid_request', message: 'url: The URL names 169.254.169.254, a link-local address, not a public one.' });

        const invalid = await json(client, 'POST', '/manage/webhooks', { url: receiver.url() });
        expect(invalid.statusCode).to.equal(400);
        expect(invalid.result).to.include({ code: 'invalid_request' });

        // Text no database stores as sent (PostgreSQL kept a literal \0 in its place).
        for (const payload of [{ url: `${receiver.url()}\u0000`, resources: ['persons'] }, { url: receiver.url(), description: 'C\u0000RM', resources: ['persons'] }, { url: receiver.url(), description: '\ud83d', resources: ['persons'] }]) {
            const unstorable = await json(client, 'POST', '/manage/webhooks', payload);
            expect(unstorable.statusCode, JSON.stringify(payload)).to.equal(400);
            expect(unstorable.result).to.include({ code: 'invalid_request' });
        }

        // A disabling reason is kept and shown too: refused, not changed (SQLite kept U+FFFD for the surrogate, PostgreSQL failed on NUL).
        const endpoint = (await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), resources: ['persons'] }) as any).result.data;
        for (const reason of ['spam\u0000', '\ud83d']) {
            const unstorable = await json(client, 'POST', `/manage/webhooks/${endpoint.id}/disable`, { reason });
            expect(unstorable.statusCode, JSON.stringify(reason)).to.equal(400);
            expect(unstorable.result).to.include({ code: 'invalid_request' });
        }

        expect((await json(client, 'GET', `/manage/webhooks/${endpoint.id}`) as any).result.data.active).to.be.true();

        const unknown = await json(client, 'GET', '/manage/webhooks/whe_00000000000000000000');
        expect(unknown.statusCode).to.equal(404);
        expect(unknown.result).to.include({ code: 'not_found' });
    });

    it('refuses URLs parsers read differently, on create and on change, and keeps a URL in its normalised form', async () => {

        const { client } = await manager();
        const at = new URL(receiver.url());
        const hostile = [
            `https://93.184.216.34\\@${at.host}${at.pathname}`,
            `https://${at.host}\\@93.184.216.34/`,
            `https://93.184.216.34@${at.host}${at.pathname}`,
            `https://@${at.host}${at.pathname}`,
            `https:${at.host}${at.pathname}`,
            `https:///${at.host}${at.pathname}`,
            `https://${at.host}${at.pathname}\t`,
            ` https://${at.host}${at.pathname}`,
            `https://${at.host}/a b`,
            `https://%31${at.host.slice(1)}${at.pathname}`
        ];
        for (const url of hostile) {
            const refused = await json(client, 'POST', '/manage/webhooks', { url, resources: ['persons'] });
            expect(refused.statusCode, url).to.equal(400);
            expect(refused.result, url).to.include({ code: 'invalid_request' });
            expect((refused.result as any).message as string, url).to.startWith('url: The URL');
        }

        const created = await json(client, 'POST', '/manage/webhooks', { url: `HTTPS://${at.host}/x/..${at.pathname}`, resources: ['persons'] });
        expect(created.statusCode, created.payload).to.equal(201);
        const endpoint = (created.result as any).data;
        expect(endpoint.url).to.equal(receiver.url());

        for (const url of hostile) {
            const refused = await json(client, 'PATCH', `/manage/webhooks/${endpoint.id}`, { url });
            expect(refused.statusCode, url).to.equal(400);
            expect(refused.result, url).to.include({ code: 'invalid_request' });
        }

        const changed = await json(client, 'PATCH', `/manage/webhooks/${endpoint.id}`, { url: `${receiver.url()}/./other` });
        expect(changed.statusCode, changed.payload).to.equal(200);
        expect((changed.result as any).data.url).to.equal(`${receiver.url()}/other`);
        expect((await json(client, 'GET', `/manage/webhooks/${endpoint.id}`) as any).result.data.url).to.equal(`${receiver.url()}/other`);
    });

    it('counts a description and a disabling reason in characters, as the records API does', async () => {

        const { client } = await manager();
        const tooLong = await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), description: '🌳'.repeat(501), resources: ['persons'] });
        expect(tooLong.statusCode).to.equal(400);
        expect(tooLong.result).to.include({ code: 'invalid_request' });
        expect((tooLong.result as any).message).to.contain('less than or equal to 500 characters');

        const created = await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), description: '🌳'.repeat(500), resources: ['persons'] });
        expect(created.statusCode).to.equal(201);
        const endpoint = (created.result as any).data;
        expect(endpoint.description).to.equal('🌳'.repeat(500));

        expect((await json(client, 'POST', `/manage/webhooks/${endpoint.id}/disable`, { reason: '🌳'.repeat(501) })).statusCode).to.equal(400);
        const disabled = await json(client, 'POST', `/manage/webhooks/${endpoint.id}/disable`, { reason: '🌳'.repeat(500) });
        expect((disabled.result as any).data).to.include({ active: false, disabled_reason: '🌳'.repeat(500) });
    });

    it('refuses a delivery-log cursor it did not give with 400, whatever the cursor holds', async () => {

        const { client } = await manager();
        const endpoint = (await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), resources: ['persons'] }) as any).result.data;
        const forged = [['-010000-01-01T00:00:00.000Z', 'whd_00000000000000000000'], ['0000-01-01T00:00:00.000Z', 'whd_00000000000000000000'], ['2026-01-01T00:00:00.000Z', 'whd_\u0000'], [1, 'whd_00000000000000000000'], null];

        for (const content of forged) {
            const cursor = Buffer.from(JSON.stringify(content)).toString('base64url');
            const response = await json(client, 'GET', `/manage/webhooks/${endpoint.id}/deliveries?cursor=${cursor}`);
            expect(response.statusCode, JSON.stringify(content)).to.equal(400);
            expect(response.result).to.include({ code: 'invalid_request', message: 'cursor: not a cursor this list gave.' });
        }
    });

    it('lets a manager act on their own family only', async () => {

        const owner = await manager();
        const endpoint = (await json(owner.client, 'POST', '/manage/webhooks', { url: receiver.url(), resources: ['persons'] }) as any).result.data;
        const other = await manager();

        for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/ping'], ['POST', '/disable'], ['POST', '/rotate-secret'], ['GET', '/deliveries']]) {
            const response = await json(other.client, method, `/manage/webhooks/${endpoint.id}${path}`, method === 'PATCH' ? { description: 'x' } : undefined);
            expect(response.statusCode, `${method} ${path}`).to.equal(404);
        }

        expect((await json(other.client, 'GET', '/manage/webhooks')).result).to.equal({ data: [] });
        expect((await json(owner.client, 'GET', `/manage/webhooks/${endpoint.id}`)).statusCode).to.equal(200);
    });

    it('refuses members, the signed-out and requests without the CSRF token', async () => {

        const family = await familyWithKey(server);
        const member = await signedIn(server, { role: 'member', familyLongId: family.familyLongId });
        expect((await json(member, 'GET', '/manage/webhooks')).statusCode).to.equal(403);

        // JSON clients get JSON, not the sign-in page's redirect.
        const anonymous = await server.inject({ method: 'GET', url: '/manage/webhooks' });
        expect(anonymous.statusCode).to.equal(401);
        expect(anonymous.result).to.include({ code: 'unauthorized' });

        const { client } = await manager();
        const forged = await json(client, 'POST', '/manage/webhooks', { url: receiver.url(), resources: ['persons'] }, { csrf: false });
        expect(forged.statusCode).to.equal(403);
    });
});
