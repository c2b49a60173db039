import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { seedDemoFamily, type DemoFamily } from '../../../lib/demo';
import { testServer } from '../../helpers/server';
import { SiteClient } from './client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('the demo seed on the hosted site', () => {

    let server: Server;
    let demo: DemoFamily;

    before(async () => {

        server = await testServer();
        demo = await seedDemoFamily(server);
    });

    after(async () => {

        await server.stop();
    });

    it('prints a manager who reaches the family\'s APIs page', async () => {

        const client = await new SiteClient(server).ready();
        const signIn = await client.post('/login', demo.manager);
        expect(signIn.headers.location).to.equal('/manage/apis');
        const page = await client.get('/manage/apis');
        expect(page.payload).to.contain('The Demo Family');
        expect(page.payload).to.contain('Demo key');
    });

    it('prints members who find their conversations on /messages at once, as the manager does', async () => {

        for (const account of [demo.manager, ...demo.members]) {
            const client = await new SiteClient(server).ready();
            expect((await client.post('/login', account)).statusCode).to.equal(302);
            const page = await client.get('/messages');
            expect(page.statusCode).to.equal(200);
            expect(page.payload).to.contain('Family reunion in Sevilla');
        }

        const client = await new SiteClient(server).ready();
        await client.post('/login', demo.members[0]);
        const list = await client.get('/messages');
        const [, direct] = /href="\/messages\/(cnv_\w+)" data-conversation-id="\1">\s*<span class="conversation-title" dir="auto">demo-manager-/.exec(list.payload)!;
        expect((await client.get(`/messages/${direct}`)).payload).to.contain('did you find the box with the 1956 wedding photos?');
    });

    it('prints a super-admin who reaches the admin area', async () => {

        const client = await new SiteClient(server).ready();
        const signIn = await client.post('/login', demo.superAdmin);
        expect(signIn.headers.location).to.equal('/admin/apis');
        expect((await client.get(`/admin/apis/families/${demo.family.family_long_id}`)).statusCode).to.equal(200);
    });
});
