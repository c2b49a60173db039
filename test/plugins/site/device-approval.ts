import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily } from '../../../lib/accounts/families';
import { testServer, testVariant } from '../../helpers/server';
import { appCode, formTokenOn, randomAddress, secretOn, signedIn, siteAccount, SiteClient } from './client';
import { deviceAsking, hostileNames, poll } from './device-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The path and query of the link a device shows, as the browser opens it. */
const pathOf = (link: string) => `${new URL(link).pathname}${new URL(link).search}`;

const escapedNames = ['&lt;script&gt;alert(1)&lt;/script&gt;', '&quot;&gt;&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;'];

describe(`the device approval page on ${testVariant}`, () => {

    let server: Server;
    let familyLongId: string;

    before(async () => {

        server = await testServer();
        familyLongId = (await createFamily(server.app.services.accounts, { name: 'Device family', plan: 'family' })).family_long_id;
    });

    after(async () => {

        await server.stop();
    });

    const member = () => signedIn(server, { role: 'member', familyLongId });

    it('sends an anonymous visitor of the device\'s link to sign in, through the second factor, and back to the code', async () => {

        const device = await deviceAsking(server, 'Ada\'s laptop');
        const link = pathOf(device.verification_uri_complete);
        expect(link).to.equal(`/device?user_code=${device.user_code}`);

        // An account with two-factor sign-in on.
        const enrolling = await member();
        const setup = await enrolling.post('/account/two-factor/setup');
        const secret = secretOn(setup.payload);
        expect((await enrolling.post('/account/two-factor/confirm', { code: appCode(secret), form_token: formTokenOn(setup.payload) })).statusCode).to.equal(200);

        const browser = new SiteClient(server);
        const anonymous = await browser.get(link);
        expect(anonymous.statusCode).to.equal(302);
        expect(anonymous.headers.location).to.equal(`/login?next=${encodeURIComponent(link)}`);
        const login = await browser.get(anonymous.headers.location as string);
        // Handlebars writes `=` as `&#x3D;` in attributes.
        const nextField = `name="next" value="${link.replace('=', '&#x3D;')}"`;
        expect(login.payload).to.contain(nextField);

        const password = await browser.post('/login', { email: enrolling.account.email, password: enrolling.account.password, next: link });
        expect(password.headers.location).to.equal(`/login/two-factor?next=${encodeURIComponent(link)}`);
        // Past the password only, the page is still out of reach.
        expect((await browser.get(link)).headers.location).to.equal(`/login?next=${encodeURIComponent(link)}`);

        const codeForm = await browser.get(password.headers.location as string);
        expect(codeForm.payload).to.contain(nextField);
        const signedInNow = await browser.post('/login/two-factor', { code: appCode(secret, 1), next: link });
        expect(signedInNow.headers.location).to.equal(link);

        const page = await browser.get(link);
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('Ada&#x27;s laptop');
        expect(page.payload).to.contain('action="/device/approve"');
    });

    it('shows what asks, from where and when, with a warning, and Approve and Deny as equal CSRF-protected forms; approving connects the device', async () => {

        const device = await deviceAsking(server, 'Kitchen PC', '198.51.100.23');
        const client = await member();
        const page = await client.get(pathOf(device.verification_uri_complete));
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('Family Records Desktop');
        expect(page.payload).to.contain('<bdi class="device-name">Kitchen PC</bdi>');
        expect(page.payload).to.contain('Read your family&#x27;s messages.');
        expect(page.payload).to.contain('<code>198.51.100.23</code>');
        expect(page.payload).to.contain('Approve only a code you started yourself');
        expect(page.payload).to.contain(`name="user_code" value="${device.user_code}"`);
        const buttons = [...page.payload.matchAll(/<button type="submit" class="([^"]+)">(Approve|Deny)<\/button>/g)];
        expect(buttons.map((button) => button[2])).to.equal(['Approve', 'Deny']);
        expect(buttons.map((button) => button[1].replace(/button-(primary|danger) /, ''))).to.equal(['button button-block', 'button button-block']);

        const forged = await client.post('/device/approve', { user_code: device.user_code }, { crumb: false });
        expect(forged.statusCode).to.equal(403);
        expect((await poll(server, device.device_code)).body.error).to.equal('authorization_pending');

        const approved = await client.post('/device/approve', { user_code: device.user_code });
        expect(approved.headers.location).to.equal('/device/approved');
        expect((await client.get('/device/approved')).payload).to.contain('Return to your device');

        const tokens = await poll(server, device.device_code);
        expect(tokens.statusCode).to.equal(200);
        expect(tokens.body.access_token).to.be.a.string();

        const audit = await server.app.services.models.AuditEvent.findOne({ where: { actor_id: client.account.user.id, action: 'device.approve' } });
        expect(audit!.target!).to.startWith('dev_');
        expect(audit!.detail).to.contain('Kitchen PC');

        // The code is used: the page says so, with no buttons, and approving again changes nothing.
        const after = await client.get(pathOf(device.verification_uri_complete));
        expect(after.payload).to.contain('This request was approved already');
        expect(after.payload).to.not.contain('action="/device/approve"');
        const again = await client.post('/device/approve', { user_code: device.user_code });
        expect(again.statusCode).to.equal(409);
        expect(again.payload).to.contain('This code was approved already.');
    });

    it('takes a code typed by hand, in lower case and without its dash; denying tells the device so', async () => {

        const device = await deviceAsking(server, 'Spare phone');
        const client = await member();
        const form = await client.get('/device');
        expect(form.payload).to.contain('name="user_code"');
        expect(form.payload).to.contain(`name="crumb" value="${client.cookies.get('crumb')}"`);

        const page = await client.post('/device', { user_code: ` ${device.user_code.replace('-', '').toLowerCase()} ` });
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('Spare phone');

        const denied = await client.post('/device/deny', { user_code: device.user_code });
        expect(denied.headers.location).to.equal('/device/denied');
        expect((await client.get('/device/denied')).payload).to.contain('You denied the request.');
        const answer = await poll(server, device.device_code);
        expect(answer.statusCode).to.equal(400);
        expect(answer.body.error).to.equal('access_denied');
        expect(await server.app.services.models.AuditEvent.count({ where: { actor_id: client.account.user.id, action: 'device.deny' } })).to.equal(1);
    });

    it('says in words when a code is malformed or matches nothing', async () => {

        const client = await member();
        const malformed = await client.post('/device', { user_code: 'hello' });
        expect(malformed.statusCode).to.equal(422);
        expect(malformed.payload).to.contain('That is not a code of the right form');

        const unknown = await client.get('/device?user_code=BCDF-GHJK');
        expect(unknown.statusCode).to.equal(422);
        expect(unknown.payload).to.contain('No device is waiting for that code.');
        expect(unknown.payload).to.contain('value="BCDF-GHJK"');
    });

    it('shows an expired code as expired, with nothing to approve, and says why an account of no family cannot approve', async () => {

        const expired = await deviceAsking(server, 'Too late');
        await server.app.services.models.DeviceRequest.update({ expires_at: new Date(Date.now() - 1000) }, { where: { device_name: 'Too late' } });
        const client = await member();
        const page = await client.get(`/device?user_code=${expired.user_code}`);
        expect(page.statusCode).to.equal(200);
        expect(page.payload).to.contain('This code has expired');
        expect(page.payload).to.not.contain('action="/device/approve"');
        const late = await client.post('/device/approve', { user_code: expired.user_code });
        expect(late.statusCode).to.equal(409);
        expect(late.payload).to.contain('This code has expired');

        const device = await deviceAsking(server, 'Operator laptop');
        const admin = await signedIn(server, { role: 'super-admin' });
        const refused = await admin.post('/device/approve', { user_code: device.user_code });
        expect(refused.statusCode).to.equal(403);
        expect(refused.payload).to.contain('Only a member of a family can connect a device');
        expect((await poll(server, device.device_code)).body.error).to.equal('authorization_pending');
    });

    it('refuses every code, the right one too, once an account has typed a handful that match nothing', async () => {

        const device = await deviceAsking(server, 'Guessed');
        const guesser = await member();
        for (const code of ['BBBB-BBBB', 'CCCC-CCCC', 'DDDD-DDDD', 'FFFF-FFFF', 'GGGG-GGGG']) {
            expect((await guesser.post('/device', { user_code: code })).statusCode).to.equal(422);
        }

        for (const attempt of [() => guesser.post('/device', { user_code: device.user_code }), () => guesser.post('/device/deny', { user_code: device.user_code })]) {
            const refused = await attempt();
            expect(refused.statusCode).to.equal(429);
            expect(refused.payload).to.contain('Too many codes that match no device were typed from your account or this address. Wait up to 15 minutes');
            expect(refused.payload).to.not.contain('Guessed');
        }

        expect((await poll(server, device.device_code)).body.error).to.equal('authorization_pending');

        // The same account from another address is refused too; another account there is not.
        const elsewhere = await new SiteClient(server).ready();
        await elsewhere.post('/login', { email: guesser.account.email, password: guesser.account.password });
        expect((await elsewhere.post('/device', { user_code: device.user_code })).statusCode).to.equal(429);
        expect((await (await member()).post('/device', { user_code: device.user_code })).statusCode).to.equal(200);
    });

    it('refuses every code from an address where many accounts typed codes that match nothing', async () => {

        const device = await deviceAsking(server, 'Shared address');
        const address = randomAddress();             // an address of its own: counts in Redis outlive a run
        for (let account = 0; account < 4; ++account) {
            const { email, password } = await siteAccount(server, { role: 'member', familyLongId });
            const browser = await new SiteClient(server, address).ready();
            await browser.post('/login', { email, password });
            for (let wrong = 0; wrong < 5; ++wrong) {
                expect((await browser.post('/device', { user_code: 'ZZZZ-ZZZZ' })).statusCode).to.equal(422);
            }
        }

        const { email, password } = await siteAccount(server, { role: 'member', familyLongId });
        const newcomer = await new SiteClient(server, address).ready();
        await newcomer.post('/login', { email, password });
        expect((await newcomer.post('/device', { user_code: device.user_code })).statusCode).to.equal(429);
    });

    it('shows hostile device names as text', async () => {

        const client = await member();
        for (const name of hostileNames) {
            const device = await deviceAsking(server, name);
            const page = await client.get(pathOf(device.verification_uri_complete));
            expect(page.statusCode).to.equal(200);
            expect(page.payload).to.not.contain('<script>alert');
            expect(page.payload).to.not.contain('<img src');
            expect(page.payload).to.contain(`<bdi class="device-name">${name.startsWith('<') || name.startsWith('"') ? escapedNames[hostileNames.indexOf(name)] : name}</bdi>`);
            // The page's title has no markup: isolates keep the name's direction to itself.
            expect(page.payload).to.contain(`<title>Connect \u2068`);
        }
    });
});
