import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { familyWithKey, testServer, type FamilyFixture } from '../../helpers/server';
import { signedIn, SiteClient } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

// What mail, chat and ad tools add to the links they carry.
const trackers = 'utm_source=newsletter&utm_medium=email&fbclid=IwAR0x&gclid=Cj0K';

describe('query parameters of the site\'s pages', () => {

    let server: Server;
    let family: FamilyFixture;

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
    });

    after(async () => {

        await server.stop();
    });

    it('opens a page from a link that carries parameters it does not know, as it opens it without them', async () => {

        const anonymous = new SiteClient(server);
        const manager = await signedIn(server, { role: 'manager', familyLongId: family.familyLongId });
        const admin = await signedIn(server, { role: 'super-admin' });
        const pages: [SiteClient, string][] = [
            [anonymous, '/login'],
            [manager, '/manage/apis'],
            [manager, '/manage/apis/keys/new'],
            [manager, '/account/security'],
            [admin, '/admin/apis'],
            [admin, `/admin/apis/families/${family.familyLongId}`],
            [admin, '/admin/audit']
        ];
        for (const [client, path] of pages) {
            const response = await client.get(`${path}?${trackers}`);
            expect(response.statusCode, path).to.equal(200);
        }

        // Without a sign-in waiting for its code, the two-factor page sends back to the password, as it always does.
        expect((await anonymous.get(`/login/two-factor?${trackers}`)).headers.location).to.equal('/login');
    });

    it('still reads, and validates, the parameters a page knows beside them', async () => {

        const anonymous = new SiteClient(server);
        expect((await anonymous.get(`/login?next=%2Fmanage%2Fapis%2Fkeys%2Fnew&${trackers}`)).payload).to.contain('name="next" value="/manage/apis/keys/new"');

        const admin = await signedIn(server, { role: 'super-admin' });
        const found = await admin.get(`/admin/apis?q=${family.familyLongId}&sort=name&${trackers}`);
        expect(found.payload).to.contain('1 family');
        expect(found.payload).to.not.contain('utm_source');         // nor carried into the page's own links

        expect((await admin.get(`/admin/apis?sort=nonsense&${trackers}`)).statusCode).to.equal(400);
        expect((await admin.get(`/admin/audit?before=yesterday&${trackers}`)).statusCode).to.equal(400);
    });

    it('leaves the records API refusing a parameter it does not know, as its contract says', async () => {

        const response = await family.inject('GET', `/api/v1/persons?${trackers}`);
        expect(response.statusCode).to.equal(400);
        expect(response.result).to.include({ code: 'invalid_request' });
    });
});
