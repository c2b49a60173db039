import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { auditCliCommand } from '../../../lib/audit-log';
import { suspendFamily } from '../../../lib/accounts/families';
import { createApiKey } from '../../../lib/accounts/api-keys';
import { allResources, familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { signedIn } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('Super-admin > APIs & Connectors', () => {

    let server: Server;
    let admin: Awaited<ReturnType<typeof signedIn>>;

    before(async () => {

        server = await testServer();
        admin = await signedIn(server, { role: 'super-admin' });
    });

    after(async () => {

        await server.stop();
    });

    async function busyFamily(name: string, requests: number, failures = 0): Promise<FamilyFixture> {

        const family = await familyWithKey(server);
        await server.app.services.models.Family.update({ name }, { where: { family_long_id: family.familyLongId } });
        for (let i = 0; i < requests; ++i) {
            await family.inject('GET', '/api/v1/persons');
        }

        for (let i = 0; i < failures; ++i) {
            await family.inject('GET', '/api/v1/persons/per_doesnotexist0000000');
        }

        return family;
    }

    it('lists every family with its usage, searchable and sorted on the server', async () => {

        const tag = `Zeta${Date.now()}`;
        const quiet = await busyFamily(`${tag} quiet`, 1);
        const busy = await busyFamily(`${tag} busy`, 4, 2);
        await server.app.services.usageMeter.flush();

        const page = await admin.get(`/admin/apis?q=${tag}&sort=requests_24h`);
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('2 families');
        expect(page.payload.indexOf(busy.familyLongId)).to.be.below(page.payload.indexOf(quiet.familyLongId));
        // busy: 6 requests, 2 of them errors; one live key.
        const busyRow = page.payload.slice(page.payload.indexOf(busy.familyLongId), page.payload.indexOf('</tr>', page.payload.indexOf(busy.familyLongId)));
        expect(busyRow).to.contain('<td class="num">6</td>');
        expect(busyRow).to.contain('<span class="badge badge-warning">2</span>');

        const byName = await admin.get(`/admin/apis?q=${tag}&sort=name&direction=asc`);
        expect(byName.payload.indexOf(busy.familyLongId)).to.be.below(byName.payload.indexOf(quiet.familyLongId));
        expect(byName.payload).to.contain('aria-sort="ascending"');
        expect(byName.payload).to.not.match(/<a [^>]*aria-sort/);             // on the column header only, as ARIA allows
        // A new search keeps the order chosen, direction included.
        expect(byName.payload).to.contain('<input type="hidden" name="sort" value="name">');
        expect(byName.payload).to.contain('<input type="hidden" name="direction" value="asc">');

        const byId = await admin.get(`/admin/apis?q=${quiet.familyLongId.slice(4, 20)}`);
        expect(byId.payload).to.contain('1 family');

        expect((await admin.get('/admin/apis?sort=password')).statusCode).to.equal(400);
    });

    it('charts a family\'s requests per day by status class and by key, with the numbers as a table', async () => {

        const family = await busyFamily('Chart family', 3, 1);
        const { apiKey, key } = await createApiKey(server.app.services.accounts, { familyLongId: family.familyLongId, name: 'Second <key>', resources: allResources, createdBy: 'test' });
        await server.inject({ method: 'GET', url: '/api/v1/events', headers: { authorization: `Bearer ${key}` } });
        await server.app.services.usageMeter.flush();

        const page = await admin.get(`/admin/apis/families/${family.familyLongId}`);
        expect(page.statusCode).to.equal(200);
        const charts = page.payload.match(/<svg class="chart"[\s\S]*?<\/svg>/g)!;
        expect(charts).to.have.length(2);
        expect(charts[0]).to.match(/<title id="[^"]+">Requests per day by status class/);
        expect(charts[0]).to.contain('<desc');
        expect(charts[0]).to.contain('2xx: 4</title>');
        expect(charts[0]).to.contain('4xx: 1</title>');
        expect(charts[1]).to.contain('\u2068test key\u2069: 4</title>');         // key names isolated: a right-to-left one keeps its count after it
        expect(charts[1]).to.contain('\u2068Second &#60;key&#62;\u2069: 1</title>');
        expect(page.payload).to.contain('Show the numbers as a table');
        expect(page.payload).to.contain('<code>GET /api/v1/persons</code></td><td class="num">3</td>');
        expect(page.payload).to.contain(apiKey.id);
    });

    it('suspends a family\'s API with a reason, at once, and lifts it', async () => {

        const family = await familyWithKey(server);
        const manager = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });

        const noReason = await admin.post(`/admin/apis/families/${family.familyLongId}/suspend`, { reason: ' ' });
        expect(noReason.statusCode).to.equal(422);
        expect(noReason.payload).to.contain('Give a reason');

        const suspended = await admin.post(`/admin/apis/families/${family.familyLongId}/suspend`, { reason: 'Hammering the API' });
        expect(suspended.headers.location).to.equal(`/admin/apis/families/${family.familyLongId}?notice=family-suspended`);
        const refused = await family.inject('GET', '/api/v1/persons');
        expect(refused.statusCode).to.equal(403);
        expect(refused.result).to.include({ code: 'family_suspended' });
        expect((await manager.get('/manage/apis')).payload).to.contain('Reason: <bdi>Hammering the API</bdi>');

        const lifted = await admin.post(`/admin/apis/families/${family.familyLongId}/unsuspend`);
        expect(lifted.headers.location).to.equal(`/admin/apis/families/${family.familyLongId}?notice=family-unsuspended`);
        expect((await family.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);
        // A second tab's unsuspend: nothing to lift, said so, not recorded.
        const again = await admin.post(`/admin/apis/families/${family.familyLongId}/unsuspend`);
        expect(again.headers.location).to.equal(`/admin/apis/families/${family.familyLongId}?notice=family-not-suspended`);
        expect((await admin.get(again.headers.location as string)).payload).to.contain('<div class="flash flash-info" role="status">The family&#x27;s API was not suspended (lifted already?): nothing changed.');
        expect((await admin.get(lifted.headers.location as string)).payload).to.contain('<div class="flash flash-success" role="status">The family&#x27;s API is no longer suspended.');

        const events = await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: family.familyLongId }, order: [['id', 'ASC']] });
        expect(events.map((event) => event.action).filter((action) => action.startsWith('family.'))).to.equal(['family.suspend', 'family.unsuspend']);
        expect(events.find((event) => event.action === 'family.suspend')!.detail).to.equal('Hammering the API');
        expect(events.find((event) => event.action === 'family.suspend')!.actor_email).to.equal(admin.account.email);
    });

    it('keeps the first suspension of a family suspended again, says so, and records one suspension', async () => {

        const family = await familyWithKey(server);
        const suspend = `/admin/apis/families/${family.familyLongId}/suspend`;
        await admin.post(suspend, { reason: 'Hammering the API' });

        const again = await admin.post(suspend, { reason: 'Another reason' });
        expect(again.statusCode).to.equal(302);
        expect(again.headers.location).to.equal(`/admin/apis/families/${family.familyLongId}?notice=family-already-suspended`);
        const page = await admin.get(again.headers.location as string);
        expect(page.payload).to.contain('<div class="flash flash-info" role="status">The family&#x27;s API was already suspended: that suspension stands');
        expect(page.payload).to.contain(`by <bdi>${admin.account.email}</bdi>. Reason shown to the family's managers: <bdi>Hammering the API</bdi>`);
        expect(page.payload).to.not.contain('Another reason');

        // A suspension made with the CLI is shown as an operator's.
        const other = await familyWithKey(server);
        await suspendFamily(server.app.services.accounts, other.familyLongId, 'From a shell', 'cli');
        expect((await admin.get(`/admin/apis/families/${other.familyLongId}`)).payload).to.contain('by <bdi>an operator (CLI)</bdi>. Reason');

        const stored = await server.app.services.models.Family.findByPk(family.familyLongId);
        expect(stored!.toJSON()).to.include({ api_suspension_reason: 'Hammering the API', api_suspended_by: admin.account.user.id });
        expect(await server.app.services.models.AuditEvent.count({ where: { family_long_id: family.familyLongId, action: 'family.suspend' } })).to.equal(1);
    });

    it('records one suspension of two sent at the same time (two super-admins, two tabs)', async () => {

        const family = await familyWithKey(server);
        const suspend = `/admin/apis/families/${family.familyLongId}/suspend`;
        const answers = await Promise.all([admin.post(suspend, { reason: 'First reason' }), admin.post(suspend, { reason: 'Second reason' })]);

        expect(answers.map((answer) => answer.headers.location).sort()).to.equal([
            `/admin/apis/families/${family.familyLongId}?notice=family-already-suspended`,
            `/admin/apis/families/${family.familyLongId}?notice=family-suspended`
        ]);
        const events = await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: family.familyLongId, action: 'family.suspend' } });
        expect(events).to.have.length(1);
        expect(events[0].detail).to.equal((await server.app.services.models.Family.findByPk(family.familyLongId))!.api_suspension_reason);
    });

    it('counts a suspension reason in characters: 500 emoji are taken, 501 are refused in words on the page and by the service', async () => {

        const family = await familyWithKey(server);
        expect((await admin.get(`/admin/apis/families/${family.familyLongId}`)).payload).to.contain('name="reason" maxlength="1000"');

        const refused = await admin.post(`/admin/apis/families/${family.familyLongId}/suspend`, { reason: '🚫'.repeat(501) });
        expect(refused.statusCode).to.equal(422);
        expect(refused.payload).to.contain('role="alert">A suspension reason is at most 500 characters.');
        await expect(suspendFamily(server.app.services.accounts, family.familyLongId, 'x'.repeat(501), 'cli')).to.reject('A suspension reason is at most 500 characters.');
        expect((await server.app.services.models.Family.findByPk(family.familyLongId))!.api_suspended_at).to.be.null();

        const suspended = await admin.post(`/admin/apis/families/${family.familyLongId}/suspend`, { reason: '🚫'.repeat(500) });
        expect(suspended.statusCode).to.equal(302);
        expect((await server.app.services.models.Family.findByPk(family.familyLongId))!.api_suspension_reason).to.equal('🚫'.repeat(500));
    });

    it('revokes any family\'s key after a confirmation', async () => {

        const family = await familyWithKey(server);
        const confirm = await admin.get(`/admin/apis/keys/${family.keyId}/revoke`);
        expect(confirm.payload).to.contain(`href="/admin/apis/families/${family.familyLongId}"`);
        const revoked = await admin.post(`/admin/apis/keys/${family.keyId}/revoke`);
        expect(revoked.headers.location).to.equal(`/admin/apis/families/${family.familyLongId}?notice=key-revoked`);
        expect((await family.inject('GET', '/api/v1/persons')).statusCode).to.equal(401);
        expect((await admin.get(`/admin/apis/keys/${family.keyId}/revoke`)).statusCode).to.equal(404);

        // Sent again (a double click, a second tab): the same answer, and nothing more to record.
        const again = await admin.post(`/admin/apis/keys/${family.keyId}/revoke`);
        expect(again.headers.location).to.equal(`/admin/apis/families/${family.familyLongId}?notice=key-revoked`);
        expect(await server.app.services.models.AuditEvent.count({ where: { target: family.keyId, action: 'api_key.revoke' } })).to.equal(1);
    });

    it('shows the audit log with who, what, when and from where, by family', async () => {

        const family = await familyWithKey(server);
        await admin.post(`/admin/apis/families/${family.familyLongId}/suspend`, { reason: 'Audit me' });

        const page = await admin.get(`/admin/audit?family=${family.familyLongId}`);
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('Suspended a family&#x27;s API');
        expect(page.payload).to.contain(admin.account.email);
        expect(page.payload).to.contain(admin.remoteAddress);
        expect(page.payload).to.contain('Audit me');
        expect(page.payload).to.contain('shot');            // server.inject's user agent

        const filtered = await admin.get(`/admin/audit?family=${family.familyLongId}&action=api_key.revoke`);
        expect(filtered.payload).to.contain('Nothing recorded for this family.');
    });

    it('names an operator\'s change with the CLI as such, with the machine account it ran as', async () => {

        const family = await familyWithKey(server);
        await auditCliCommand(server.app.services.models, { action: 'family.change_plan', familyLongId: family.familyLongId, target: family.familyLongId, detail: 'max plan' });

        const page = await admin.get(`/admin/audit?family=${family.familyLongId}&action=family.change_plan`);
        expect(page.payload).to.contain('<td dir="auto">An operator (CLI)</td>');
        expect(page.payload).to.contain('Changed a family&#x27;s plan');
        expect(page.payload).to.match(/family-records CLI, [^<]+@[^<]+</);
    });

    it('answers a NUL character in the audit filter or a suspension reason with a 400, changing nothing', async () => {

        const family = await familyWithKey(server);
        expect((await admin.get('/admin/audit?family=fam_%00')).statusCode).to.equal(400);
        expect((await admin.post(`/admin/apis/families/${family.familyLongId}/suspend`, { reason: 'Scraping\u0000' })).statusCode).to.equal(400);
        const stored = await server.app.services.models.Family.findByPk(family.familyLongId);
        expect(stored!.api_suspended_at).to.be.null();
    });

    it('lets a browser type no more into a filter than the server takes, so a long search is never a 400 page', async () => {

        expect((await admin.get('/admin/apis')).payload).to.contain('name="q" value="" maxlength="400"');
        expect((await admin.get('/admin/audit')).payload).to.contain('name="family" value="" maxlength="64"');
    });

    it('answers an unknown family with a 404 page', async () => {

        const response = await admin.get('/admin/apis/families/fam_doesnotexist0000000000000000000');
        expect(response.statusCode).to.equal(404);
        expect(response.payload).to.contain('Not found');
    });
});
