import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily } from '../../../lib/accounts/families';
import { testServer, testVariant } from '../../helpers/server';
import { signedIn, type SiteClient } from './client';
import { deviceAsking, hostileNames, poll, stillConnected } from './device-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`connected devices on ${testVariant}`, () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    const newFamily = async () => (await createFamily(server.app.services.accounts, { name: 'Connected family', plan: 'family' })).family_long_id;

    /** A device `client`'s user approved on /device: its grant id and its access token. */
    async function connected(client: SiteClient, name: string): Promise<{ grantId: string; accessToken: string }> {

        const device = await deviceAsking(server, name);
        expect((await client.post('/device/approve', { user_code: device.user_code })).headers.location).to.equal('/device/approved');
        const { body } = await poll(server, device.device_code);
        const grant = await server.app.services.models.DeviceGrant.findOne({ where: { device_name: name }, order: [['approved_at', 'DESC']] });
        return { grantId: grant!.id, accessToken: body.access_token };
    }

    const disconnectedAudits = (grantId: string) => server.app.services.models.AuditEvent.count({ where: { action: 'device.revoke', target: grantId } });

    it('lists a user\'s own devices on /account/devices, and Disconnect refuses the device from its next request', async () => {

        const familyLongId = await newFamily();
        const client = await signedIn(server, { role: 'member', familyLongId });
        const other = await signedIn(server, { role: 'member', familyLongId });
        const device = await connected(client, 'Study desktop');
        const { grantId } = device;
        const others = await connected(other, 'Someone else\'s desktop');
        expect(await stillConnected(server, device.accessToken)).to.be.true();

        const page = await client.get('/account/devices');
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('Study desktop');
        expect(page.payload).to.contain('Family Records Desktop');
        expect(page.payload).to.contain('messages:read');
        expect(page.payload).to.contain(`action="/account/devices/${grantId}/disconnect"`);
        expect(page.payload).to.not.contain('Someone else');

        // Another user's device is no concern of this page.
        expect((await client.post(`/account/devices/${others.grantId}/disconnect`)).statusCode).to.equal(404);
        expect((await client.post(`/account/devices/${grantId}/disconnect`, {}, { crumb: false })).statusCode).to.equal(403);

        const disconnected = await client.post(`/account/devices/${grantId}/disconnect`);
        expect(disconnected.headers.location).to.equal('/account/devices?notice=device-disconnected');
        expect(await stillConnected(server, device.accessToken)).to.be.false();
        expect(await stillConnected(server, others.accessToken)).to.be.true();
        expect((await client.get(disconnected.headers.location as string)).payload).to.not.contain('Study desktop');

        // A second tab sends it again: nothing changes, nothing more is recorded.
        expect((await client.post(`/account/devices/${grantId}/disconnect`)).headers.location).to.equal('/account/devices?notice=device-already-disconnected');
        expect(await disconnectedAudits(grantId)).to.equal(1);
    });

    it('lets a manager see and disconnect the family\'s devices on /manage/apis, never another family\'s', async () => {

        const familyLongId = await newFamily();
        const manager = await signedIn(server, { role: 'manager', familyLongId });
        const memberOf = await signedIn(server, { role: 'member', familyLongId });
        const stranger = await signedIn(server, { role: 'member', familyLongId: await newFamily() });
        const device = await connected(memberOf, 'Member laptop');
        const { grantId } = device;
        const strangers = await connected(stranger, 'Stranger laptop');

        const page = await manager.get('/manage/apis');
        expect(page.payload).to.contain('Member laptop');
        expect(page.payload).to.contain(memberOf.account.email);
        expect(page.payload).to.not.contain('Stranger laptop');

        expect((await manager.post(`/manage/apis/devices/${strangers.grantId}/disconnect`)).statusCode).to.equal(404);
        expect((await memberOf.post(`/manage/apis/devices/${grantId}/disconnect`)).statusCode).to.equal(403);

        const disconnected = await manager.post(`/manage/apis/devices/${grantId}/disconnect`);
        expect(disconnected.headers.location).to.equal('/manage/apis?notice=device-disconnected');
        expect(await stillConnected(server, device.accessToken)).to.be.false();
        expect(await stillConnected(server, strangers.accessToken)).to.be.true();
        const audit = await server.app.services.models.AuditEvent.findOne({ where: { action: 'device.revoke', target: grantId } });
        expect(audit!.actor_id).to.equal(manager.account.user.id);
        expect(audit!.family_long_id).to.equal(familyLongId);
    });

    it('lets a super-admin disconnect a family\'s device from the family\'s page', async () => {

        const familyLongId = await newFamily();
        const admin = await signedIn(server, { role: 'super-admin' });
        const user = await signedIn(server, { role: 'member', familyLongId });
        const device = await connected(user, 'Attic server');
        const { grantId } = device;

        const page = await admin.get(`/admin/apis/families/${familyLongId}`);
        expect(page.payload).to.contain('Attic server');
        expect(page.payload).to.contain(`action="/admin/apis/families/${familyLongId}/devices/${grantId}/disconnect"`);

        expect((await admin.post(`/admin/apis/families/${await newFamily()}/devices/${grantId}/disconnect`)).statusCode).to.equal(404);
        const disconnected = await admin.post(`/admin/apis/families/${familyLongId}/devices/${grantId}/disconnect`);
        expect(disconnected.headers.location).to.equal(`/admin/apis/families/${familyLongId}?notice=device-disconnected`);
        expect(await stillConnected(server, device.accessToken)).to.be.false();
        expect(await disconnectedAudits(grantId)).to.equal(1);
        expect((await admin.get('/admin/audit?action=device.revoke')).payload).to.contain('Disconnected a device');
    });

    it('shows hostile device names as text on the account, manager and admin pages', async () => {

        const familyLongId = await newFamily();
        const manager = await signedIn(server, { role: 'manager', familyLongId });
        const admin = await signedIn(server, { role: 'super-admin' });
        for (const name of hostileNames) {
            await connected(manager, name);
        }

        for (const page of [await manager.get('/account/devices'), await manager.get('/manage/apis'), await admin.get(`/admin/apis/families/${familyLongId}`)]) {
            expect(page.statusCode).to.equal(200);
            expect(page.payload).to.not.contain('<script>alert');
            expect(page.payload).to.not.contain('<img src');
            expect(page.payload).to.contain('<strong dir="auto" class="device-name">&lt;script&gt;alert(1)&lt;/script&gt;</strong>');
            expect(page.payload).to.contain('<strong dir="auto" class="device-name">&quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;</strong>');
            expect(page.payload).to.contain('<strong dir="auto" class="device-name">\u202Egnp.exe</strong>');
            expect(page.payload).to.contain(`<strong dir="auto" class="device-name">${'W'.repeat(100)}</strong>`);
        }
    });
});
