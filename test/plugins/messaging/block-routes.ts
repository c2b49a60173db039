import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { setUserDisabled } from '../../../lib/accounts/users';
import { dataOf, expectError, messagingClients } from './fixtures';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('/messaging/v1 people and blocks', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('lists the people of the family you can message, without you or disabled accounts, saying whom you blocked', async () => {

        const [anna, ben, cleo, dan] = await messagingClients(server, 4);
        await setUserDisabled(server.app.services.accounts, dan.user.id, true);
        expect((await anna.write('PUT', `/blocks/${cleo.user.id}`)).statusCode).to.equal(201);

        const people = dataOf(await anna.call('GET', '/people'));
        const expected = [ben, cleo].map((client) => ({ id: client.user.id, email: client.user.email, blocked: client === cleo }))
            .sort((one, other) => (one.email < other.email ? -1 : 1));
        expect(people).to.equal(expected);
        expect(dataOf(await ben.call('GET', '/people')).every((person: { blocked: boolean }) => !person.blocked)).to.be.true();
    });

    it('blocks (201, then 200: nothing changes), lists and unblocks (204, also when not blocked)', async () => {

        const [anna, ben, cleo] = await messagingClients(server, 3);
        const first = await anna.write('PUT', `/blocks/${ben.user.id}`);
        expect(first.statusCode).to.equal(201);
        expect(dataOf(first, 201)).to.include({ user_id: ben.user.id });
        expect(dataOf(await anna.write('PUT', `/blocks/${ben.user.id}`))).to.equal(dataOf(first, 201));
        dataOf(await anna.write('PUT', `/blocks/${cleo.user.id}`), 201);
        expect(dataOf(await anna.call('GET', '/blocks')).map((block: { user_id: string }) => block.user_id).sort()).to.equal([ben.user.id, cleo.user.id].sort());
        expect(dataOf(await ben.call('GET', '/blocks'))).to.equal([]);

        expect((await anna.write('DELETE', `/blocks/${ben.user.id}`)).statusCode).to.equal(204);
        expect((await anna.write('DELETE', `/blocks/${ben.user.id}`)).statusCode).to.equal(204);
        expect(dataOf(await anna.call('GET', '/blocks')).map((block: { user_id: string }) => block.user_id)).to.equal([cleo.user.id]);
    });

    it('refuses blocking yourself with 400, and starting a direct conversation across a block with 403 blocked', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        expectError(await anna.write('PUT', `/blocks/${anna.user.id}`), 400, 'invalid_request');
        dataOf(await ben.write('PUT', `/blocks/${anna.user.id}`), 201);
        expectError(await anna.write('POST', '/conversations', { kind: 'direct', user_id: ben.user.id }), 403, 'blocked');
        expectError(await ben.write('POST', '/conversations', { kind: 'direct', user_id: anna.user.id }), 403, 'blocked');
    });
});
