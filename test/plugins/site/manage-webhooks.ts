import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { suspendFamily } from '../../../lib/accounts/families';
import { keptLog } from '../../helpers/kept-log';
import { familyWithKey } from '../../helpers/server';
import { TestReceiver } from '../webhooks/helpers/receiver';
import { webhooksServer } from '../webhooks/helpers/setup';
import { formTokenOn, signedIn, type Form } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

// Handlebars writes `=` as `&#x3D;` in attributes; the browser reads it back as `=`.
const unescaped = (html: string) => html.replace(/&#x3D;/g, '=');
const secretOn = (page: string) => /value="(whsec_[^"]+)"/.exec(unescaped(page))?.[1];

describe('Manage > APIs & Connectors: webhooks', () => {

    let receiver: TestReceiver;
    let server: Server;
    const serverLog = keptLog([/^\[request,error\] \S+ POST \/manage\/apis\/webhooks\/\S+\/rotate: Error: connection lost after the rotation\n/]);

    before(async () => {

        receiver = await TestReceiver.start();
        // Not started: no worker, so only the page's own test events and redeliveries reach the receiver.
        server = await webhooksServer(receiver, { start: false, log: serverLog.log });
    });

    after(async () => {

        await server.stop();
        await receiver.close();
    });

    async function managerWithEndpoint() {

        const family = await familyWithKey(server, { resources: ['persons', 'events'] });
        const client = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const created = await client.postFrom('/manage/apis/webhooks/new', '/manage/apis/webhooks', { url: receiver.url(), description: 'Sync <server>', resources: ['persons'] });
        expect(created.statusCode).to.equal(201);
        const endpoint = (await server.plugins.webhooks.listEndpoints(family.familyLongId))[0];
        return { family, client, endpoint, secret: secretOn(created.payload)! };
    }

    it('adds an endpoint, shows its secret once, then only a hint', async () => {

        const { client, endpoint, secret } = await managerWithEndpoint();
        expect(secret).to.match(/^whsec_/);
        expect(endpoint.url).to.equal(receiver.url());

        const overview = await client.get('/manage/apis');
        expect(overview.payload).to.contain(receiver.url());
        expect(overview.payload).to.contain('Sync &lt;server&gt;');
        expect(unescaped(overview.payload)).to.contain(`whsec_…${secret.slice(-4)}`);
        expect(unescaped(overview.payload)).to.not.contain(secret);
        expect(unescaped((await client.get(`/manage/apis/webhooks/${endpoint.id}`)).payload)).to.not.contain(secret);
    });

    it('says in words why a destination is refused', async () => {

        const family = await familyWithKey(server);
        const client = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const refused = await client.postFrom('/manage/apis/webhooks/new', '/manage/apis/webhooks', { url: 'https://10.1.2.3/hook', resources: ['persons'] });
        expect(refused.statusCode).to.equal(422);
        expect(refused.payload).to.match(/role="alert">url: [^<]*10\.1\.2\.3/);
        expect(refused.payload).to.contain('value="https://10.1.2.3/hook"');
        expect(await server.plugins.webhooks.listEndpoints(family.familyLongId)).to.have.length(0);
    });

    it('counts a description and a URL in characters: at the limit they are taken, one more is refused in words; a URL as it is kept, percent-encoded', async () => {

        const family = await familyWithKey(server, { resources: ['persons'] });
        const client = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const form = (await client.get('/manage/apis/webhooks/new')).payload;
        expect(form).to.contain('name="url" value="https://" required maxlength="4096"');
        expect(form).to.contain('name="description" value="" maxlength="1000"');

        const url = (characters: number, character = 'a') => receiver.url(`/${character.repeat(characters - receiver.url('/').length)}`);
        const tooLong: [Form, string][] = [
            [{ url: receiver.url(), description: '🌳'.repeat(501), resources: ['persons'] }, 'description: at most 500 characters.'],
            [{ url: url(2049), resources: ['persons'] }, 'url: The URL is longer than 2048 characters.'],
            [{ url: url(2048, '🌳'), resources: ['persons'] }, 'url: The URL is longer than 2048 characters once its characters beyond ASCII are percent-encoded, as it is kept.'],
            [{ url: receiver.url(`/${'🌳'.repeat(200)}`), resources: ['persons'] }, 'url: The URL is longer than 2048 characters once its characters beyond ASCII are percent-encoded, as it is kept.']
        ];
        for (const [payload, message] of tooLong) {
            const refused = await client.postFrom('/manage/apis/webhooks/new', '/manage/apis/webhooks', payload);
            expect(refused.statusCode).to.equal(422);
            expect(refused.payload).to.contain(`role="alert">${message}`);
        }

        expect(await server.plugins.webhooks.listEndpoints(family.familyLongId)).to.have.length(0);
        expect((await client.postFrom('/manage/apis/webhooks/new', '/manage/apis/webhooks', { url: url(2048), description: '🌳'.repeat(500), resources: ['persons'] })).statusCode).to.equal(201);
        const [endpoint] = await server.plugins.webhooks.listEndpoints(family.familyLongId);
        expect(endpoint.url).to.have.length(2048);
        expect(endpoint.description).to.equal('🌳'.repeat(500));
    });

    it('refuses a URL other parsers read differently, saying why, and keeps a URL in its normalised form', async () => {

        const family = await familyWithKey(server, { resources: ['persons'] });
        const client = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const at = new URL(receiver.url());
        const hostile: [string, string][] = [
            [`https://93.184.216.34\\@${at.host}/`, 'url: The URL must not contain a backslash: parsers disagree on whether it ends the host.'],
            [`https://@${at.host}/`, 'url: The URL must not contain a user name or password.'],
            [`https:${at.host}/`, 'url: The URL must be written https://host/path: the scheme, two slashes, then the host.'],
            [`https://${at.host}/a\tb`, 'url: The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.']
        ];
        for (const [url, message] of hostile) {
            const refused = await client.postFrom('/manage/apis/webhooks/new', '/manage/apis/webhooks', { url, resources: ['persons'] });
            expect(refused.statusCode, url).to.equal(422);
            expect(refused.payload, url).to.contain(`role="alert">${message}`);
        }

        expect(await server.plugins.webhooks.listEndpoints(family.familyLongId)).to.have.length(0);
        expect((await client.postFrom('/manage/apis/webhooks/new', '/manage/apis/webhooks', { url: `HTTPS://${at.host.toUpperCase()}/./x/..${at.pathname}`, resources: ['persons'] })).statusCode).to.equal(201);
        const [endpoint] = await server.plugins.webhooks.listEndpoints(family.familyLongId);
        expect(endpoint.url).to.equal(receiver.url());
    });

    it('sends a test event and shows how it went, then redelivers it; reloading either result sends nothing again', async () => {

        const { client, endpoint } = await managerWithEndpoint();
        const before = receiver.received.length;
        const tested = await client.post(`/manage/apis/webhooks/${endpoint.id}/test`);
        expect(tested.statusCode).to.equal(302);
        const testedPage = tested.headers.location as string;
        const deliveryId = new RegExp(`^/manage/apis/webhooks/${endpoint.id}\\?test=(whd_[0-9A-Za-z]+)$`).exec(testedPage)![1];
        expect(receiver.received.length).to.equal(before + 1);
        expect(receiver.received.at(-1)!.headers['x-service-event']).to.equal('ping');

        for (const reload of [1, 2]) {
            const page = await client.get(testedPage);
            expect(page.payload, `load ${reload}`).to.match(/Test event: delivered<\/strong> · HTTP 204 · \d+ ms/);
            expect(page.payload).to.contain(`deliveries/${deliveryId}/redeliver`);
            expect(page.payload).to.contain('<span class="badge badge-success">Delivered</span>');
            expect(page.payload).to.match(/<td class="num">\d+ ms<\/td>/);
        }

        expect(receiver.received.length).to.equal(before + 1);
        expect((await client.get(`/manage/apis/webhooks/${endpoint.id}`)).payload).to.not.contain('Test event:');

        const redelivered = await client.post(`/manage/apis/webhooks/${endpoint.id}/deliveries/${deliveryId}/redeliver`);
        expect(redelivered.headers.location).to.equal(`/manage/apis/webhooks/${endpoint.id}?redelivery=${deliveryId}`);
        for (const reload of [1, 2]) {
            const page = await client.get(redelivered.headers.location as string);
            expect(page.payload, `load ${reload}`).to.contain('Redelivery: delivered');
            expect(page.payload).to.not.contain('Test event:');
            expect(page.payload).to.contain('<td class="num">2<div class="muted small">2 by hand</div></td>');
        }

        expect(receiver.received.length).to.equal(before + 2);
    });

    it('shows a test result only for a delivery of the page\'s own endpoint and family', async () => {

        const { family, client, endpoint } = await managerWithEndpoint();
        const other = await managerWithEndpoint();
        const othersTest = (await other.client.post(`/manage/apis/webhooks/${other.endpoint.id}/test`)).headers.location as string;
        const othersDelivery = /test=(whd_[0-9A-Za-z]+)/.exec(othersTest)![1];
        expect((await other.client.get(othersTest)).payload).to.contain('Test event: delivered');

        const secondEndpoint = await client.postFrom('/manage/apis/webhooks/new', '/manage/apis/webhooks', { url: receiver.url('/second'), resources: ['persons'] });
        expect(secondEndpoint.statusCode).to.equal(201);
        const second = (await server.plugins.webhooks.listEndpoints(family.familyLongId)).find((listed) => listed.id !== endpoint.id)!;
        const secondsDelivery = /test=(whd_[0-9A-Za-z]+)/.exec((await client.post(`/manage/apis/webhooks/${second.id}/test`)).headers.location as string)![1];

        for (const query of [`test=${othersDelivery}`, `redelivery=${othersDelivery}`, `test=${secondsDelivery}`, 'test=whd_0000000000000000&utm_source=mail']) {
            const page = await client.get(`/manage/apis/webhooks/${endpoint.id}?${query}`);
            expect(page.statusCode, query).to.equal(200);
            expect(page.payload, query).to.not.match(/Test event:|Redelivery:/);
        }

        expect((await client.get(`/manage/apis/webhooks/${endpoint.id}?test=not-an-id`)).statusCode).to.equal(400);
    });

    it('rotates the secret, disables, enables and deletes the endpoint, recording each', async () => {

        const { family, client, endpoint, secret } = await managerWithEndpoint();
        const rotated = await client.postFrom(`/manage/apis/webhooks/${endpoint.id}`, `/manage/apis/webhooks/${endpoint.id}/rotate`);
        const newSecret = secretOn(rotated.payload)!;
        expect(newSecret).to.match(/^whsec_/);
        expect(newSecret).to.not.equal(secret);
        expect(rotated.payload).to.contain('The previous secret keeps signing too');

        expect((await client.post(`/manage/apis/webhooks/${endpoint.id}/disable`)).headers.location).to.equal(`/manage/apis/webhooks/${endpoint.id}?notice=webhook-disabled`);
        expect((await client.get(`/manage/apis/webhooks/${endpoint.id}`)).payload).to.contain('<span class="badge badge-neutral"');
        expect((await client.post(`/manage/apis/webhooks/${endpoint.id}/enable`)).headers.location).to.equal(`/manage/apis/webhooks/${endpoint.id}?notice=webhook-enabled`);

        expect((await client.get(`/manage/apis/webhooks/${endpoint.id}/delete`)).payload).to.contain('Delete this webhook endpoint?');
        expect((await client.post(`/manage/apis/webhooks/${endpoint.id}/delete`)).headers.location).to.equal('/manage/apis?notice=webhook-deleted');
        expect(await server.plugins.webhooks.listEndpoints(family.familyLongId)).to.have.length(0);

        const events = await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: family.familyLongId }, order: [['id', 'ASC']] });
        expect(events.map((event) => event.action)).to.include(['webhook.create', 'webhook.rotate_secret', 'webhook.disable', 'webhook.enable', 'webhook.delete']);
        // As the JSON route's: the URL is all that is left of the endpoint.
        const deleted = events.find((event) => event.action === 'webhook.delete')!;
        expect([deleted.target, deleted.detail]).to.equal([endpoint.id, receiver.url()]);
    });

    it('answers an endpoint form and a rotation sent again (a reload of the page that shows the secret) with 409 saying what was done, doing nothing more', async () => {

        const family = await familyWithKey(server, { resources: ['persons'] });
        const client = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const form = { url: receiver.url(), resources: ['persons'], form_token: formTokenOn((await client.get('/manage/apis/webhooks/new')).payload) };
        expect((await client.post('/manage/apis/webhooks', form)).statusCode).to.equal(201);
        const added = await client.post('/manage/apis/webhooks', form);
        expect(added.statusCode).to.equal(409);
        expect(added.payload).to.contain(`This form was already sent: the endpoint <bdi>${receiver.url()}</bdi> was added then`);
        expect(added.payload).to.contain('Its signing secret is shown only once; if you did not copy it, rotate the secret on the endpoint\'s page.');
        expect(secretOn(added.payload)).to.be.undefined();
        const endpoints = await server.plugins.webhooks.listEndpoints(family.familyLongId);
        expect(endpoints).to.have.length(1);

        const [endpoint] = endpoints;
        const rotation = { form_token: formTokenOn((await client.get(`/manage/apis/webhooks/${endpoint.id}`)).payload) };
        expect((await client.post(`/manage/apis/webhooks/${endpoint.id}/rotate`, rotation)).statusCode).to.equal(200);
        const rotated = await client.post(`/manage/apis/webhooks/${endpoint.id}/rotate`, rotation);
        expect(rotated.statusCode).to.equal(409);
        expect(rotated.payload).to.contain(`This form was already sent: the signing secret of <bdi>${receiver.url()}</bdi> was rotated then`);
        expect(rotated.payload).to.contain(`href="/manage/apis/webhooks/${endpoint.id}"`);
        expect(secretOn(rotated.payload)).to.be.undefined();
        // Rotated once: the secret the receiver checks still signs, as the previous one.
        const { WebhookEndpoint, AuditEvent } = server.app.services.models;
        expect((await WebhookEndpoint.findByPk(endpoint.id))!.previous_secret_encrypted).to.equal(endpoint.secret_encrypted);
        expect(await AuditEvent.count({ where: { target: endpoint.id, action: 'webhook.rotate_secret' } })).to.equal(1);
    });

    it('does not rotate again when the first send failed on our side: the secret may have been rotated before the failure', async () => {

        const { client, endpoint } = await managerWithEndpoint();
        const rotation = { form_token: formTokenOn((await client.get(`/manage/apis/webhooks/${endpoint.id}`)).payload) };
        const webhooks = server.plugins.webhooks;
        const rotateSecret = webhooks.rotateSecret;
        webhooks.rotateSecret = async (...args) => {

            await rotateSecret(...args);
            throw new Error('connection lost after the rotation');
        };

        try {
            const failed = await client.post(`/manage/apis/webhooks/${endpoint.id}/rotate`, rotation);
            expect(failed.statusCode).to.equal(500);
            expect(failed.payload).to.contain(`The error is logged as request ${failed.headers['x-request-id'] as string}.`);
            expect(serverLog.lines.filter((line) => line.startsWith(`[request,error] ${failed.headers['x-request-id'] as string} `))).to.have.length(1);
        }
        finally {
            webhooks.rotateSecret = rotateSecret;
        }

        const resent = await client.post(`/manage/apis/webhooks/${endpoint.id}/rotate`, rotation);
        expect(resent.statusCode).to.equal(409);
        expect(resent.payload).to.contain('its answer is not known: it is still being handled, or it failed.');
        expect((await server.app.services.models.WebhookEndpoint.findByPk(endpoint.id))!.previous_secret_encrypted).to.equal(endpoint.secret_encrypted);
    });

    it('answers a delete form sent twice (a double click, a second tab) as the first time, recording it once', async () => {

        const { family, client, endpoint } = await managerWithEndpoint();
        expect((await client.get(`/manage/apis/webhooks/${endpoint.id}/delete`)).statusCode).to.equal(200);
        for (let sent = 0; sent < 2; ++sent) {
            const deleted = await client.post(`/manage/apis/webhooks/${endpoint.id}/delete`);
            expect(deleted.statusCode).to.equal(302);
            expect(deleted.headers.location).to.equal('/manage/apis?notice=webhook-deleted');
        }

        expect(await server.app.services.models.AuditEvent.count({ where: { target: endpoint.id, action: 'webhook.delete' } })).to.equal(1);
        expect((await client.get(`/manage/apis/webhooks/${endpoint.id}/delete`)).statusCode).to.equal(404);

        // Another manager of the same family sees it done too; another family's manager, and an id never given, stay unknown.
        const colleague = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        expect((await colleague.post(`/manage/apis/webhooks/${endpoint.id}/delete`)).headers.location).to.equal('/manage/apis?notice=webhook-deleted');
        const stranger = await signedIn(server, { role: 'manager', familyLongId: (await familyWithKey(server)).familyLongId });
        expect((await stranger.post(`/manage/apis/webhooks/${endpoint.id}/delete`)).statusCode).to.equal(404);
        expect((await client.post('/manage/apis/webhooks/whe_neverexisted00000000/delete')).statusCode).to.equal(404);
    });

    it('answers both of two delete forms sent at once (a double click) as done, recording the deletion once', async () => {

        for (let pair = 0; pair < 5; ++pair) {
            const { client, endpoint } = await managerWithEndpoint();
            const answers = await Promise.all([client.post(`/manage/apis/webhooks/${endpoint.id}/delete`), client.post(`/manage/apis/webhooks/${endpoint.id}/delete`)]);
            expect(answers.map((answer) => answer.headers.location)).to.equal(['/manage/apis?notice=webhook-deleted', '/manage/apis?notice=webhook-deleted']);
            expect(await server.app.services.models.AuditEvent.count({ where: { target: endpoint.id, action: 'webhook.delete' } })).to.equal(1);
        }
    });

    it('never shows or changes another family\'s endpoint', async () => {

        const { endpoint } = await managerWithEndpoint();
        const stranger = await familyWithKey(server);
        const client = await signedIn(server, { role: 'manager', familyLongId: stranger.familyLongId });
        const before = receiver.received.length;

        expect((await client.get(`/manage/apis/webhooks/${endpoint.id}`)).statusCode).to.equal(404);
        expect((await client.post(`/manage/apis/webhooks/${endpoint.id}/test`)).statusCode).to.equal(404);
        expect((await client.postFrom('/manage/apis/webhooks/new', `/manage/apis/webhooks/${endpoint.id}/rotate`)).statusCode).to.equal(404);
        expect((await client.post(`/manage/apis/webhooks/${endpoint.id}/delete`)).statusCode).to.equal(404);
        expect(receiver.received.length).to.equal(before);
        expect((await server.app.services.models.WebhookEndpoint.findByPk(endpoint.id))!.active).to.be.true();
    });

    it('lets a super-admin send a test event to any endpoint and see the result', async () => {

        const { family, endpoint } = await managerWithEndpoint();
        const admin = await signedIn(server, { role: 'super-admin' });
        const page = await admin.get(`/admin/apis/families/${family.familyLongId}`);
        expect(page.payload).to.contain(`/admin/apis/families/${family.familyLongId}/webhooks/${endpoint.id}/test`);

        const before = receiver.received.length;
        const tested = await admin.post(`/admin/apis/families/${family.familyLongId}/webhooks/${endpoint.id}/test`);
        expect(tested.statusCode).to.equal(302);
        expect(tested.headers.location).to.match(new RegExp(`^/admin/apis/families/${family.familyLongId}\\?webhook_test=whd_[0-9A-Za-z]+$`));
        for (const reload of [1, 2]) {
            expect((await admin.get(tested.headers.location as string)).payload, `load ${reload}`).to.match(new RegExp(`Test event to <code>${endpoint.id}</code>: delivered · HTTP 204`));
        }

        expect(receiver.received.length).to.equal(before + 1);

        const wrongFamily = await familyWithKey(server);
        expect((await admin.post(`/admin/apis/families/${wrongFamily.familyLongId}/webhooks/${endpoint.id}/test`)).statusCode).to.equal(404);
        const otherFamilysPage = await admin.get(`/admin/apis/families/${wrongFamily.familyLongId}?${new URL(tested.headers.location as string, 'http://x').searchParams}`);
        expect(otherFamilysPage.statusCode).to.equal(200);
        expect(otherFamilysPage.payload).to.not.contain('Test event to');
    });

    it('says why nothing is sent while the family is suspended, to its manager and to a super-admin', async () => {

        const { family, client, endpoint } = await managerWithEndpoint();
        const delivered = await client.post(`/manage/apis/webhooks/${endpoint.id}/test`);
        const deliveryId = /test=(whd_[0-9A-Za-z]+)/.exec(delivered.headers.location as string)![1];
        await suspendFamily(server.app.services.accounts, family.familyLongId, 'Unusual traffic', 'test');
        const admin = await signedIn(server, { role: 'super-admin' });
        const before = receiver.received.length;

        for (const refused of [
            await client.post(`/manage/apis/webhooks/${endpoint.id}/test`),
            await client.post(`/manage/apis/webhooks/${endpoint.id}/deliveries/${deliveryId}/redeliver`),
            await admin.post(`/admin/apis/families/${family.familyLongId}/webhooks/${endpoint.id}/test`)
        ]) {
            expect(refused.statusCode).to.equal(403);
            expect(refused.payload).to.match(/role="alert">The family(&#x27;|')s API is suspended: its webhooks send nothing/);
        }

        expect(receiver.received.length).to.equal(before);
        const actions = (await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: family.familyLongId } })).map((event) => event.action);
        expect(actions.filter((action) => action === 'webhook.test')).to.have.length(1);
    });
});
