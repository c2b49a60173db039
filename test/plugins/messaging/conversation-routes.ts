import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { dataOf, directConversation, expectError, messagingClients } from './fixtures';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('/messaging/v1/conversations', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('starts a direct conversation once: 201 with it, then 200 with the same one, from either side', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const created = await anna.write('POST', '/conversations', { kind: 'direct', user_id: ben.user.id });
        const conversation = dataOf(created, 201);
        expect(conversation).to.include({ kind: 'direct', title: null, created_by: anna.user.id, unread_count: 0, revision: 1, last_message_at: null });
        expect(conversation.member_ids.sort()).to.equal([anna.user.id, ben.user.id].sort());
        expect(created.headers.etag).to.equal('"1"');

        const again = dataOf(await ben.write('POST', '/conversations', { kind: 'direct', user_id: anna.user.id }));
        expect(again.id).to.equal(conversation.id);
        expect(dataOf(await ben.call('GET', `/conversations/${conversation.id}`))).to.equal(again);
    });

    it('refuses a direct conversation with yourself, a bad kind, unknown fields and ids of the wrong shape with 400', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        expectError(await anna.write('POST', '/conversations', { kind: 'direct', user_id: anna.user.id }), 400, 'invalid_request');
        expectError(await anna.write('POST', '/conversations', { kind: 'channel', user_id: ben.user.id }), 400, 'invalid_request');
        expectError(await anna.write('POST', '/conversations', { kind: 'direct', user_id: ben.user.id, title: 'x' }), 400, 'invalid_request');
        expectError(await anna.write('POST', '/conversations', { kind: 'direct', user_id: 'usr_nope' }), 400, 'invalid_request');
        expectError(await anna.write('POST', '/conversations', { kind: 'group', title: '   ', member_ids: [ben.user.id] }), 400, 'invalid_request');
        expectError(await anna.write('POST', '/conversations', { kind: 'group', title: 'x', member_ids: [ben.user.id, ben.user.id] }), 400, 'invalid_request');
        expectError(await anna.write('POST', '/conversations?x=1', { kind: 'direct', user_id: ben.user.id }), 400, 'invalid_request');
        expectError(await anna.call('GET', '/conversations?limit=1'), 400, 'invalid_request');
    });

    it('makes a group, lists it with unread counts, marks it read, renames it and changes its members as its creator', async () => {

        const [anna, ben, cleo, dan] = await messagingClients(server, 4);
        const group = dataOf(await ben.write('POST', '/conversations', { kind: 'group', title: 'Cousins', member_ids: [cleo.user.id] }), 201);
        // Members who joined together are listed by id, as the database orders text: compared as sets.
        const membersOf = (conversation: { member_ids: string[] }) => [...conversation.member_ids].sort();
        const ids = (...clients: typeof anna[]) => clients.map((client) => client.user.id).sort();
        expect(group).to.include({ kind: 'group', title: 'Cousins', created_by: ben.user.id });
        expect(membersOf(group)).to.equal(ids(ben, cleo));

        dataOf(await ben.write('POST', `/conversations/${group.id}/messages`, { body: 'Hello' }), 201);
        dataOf(await ben.write('POST', `/conversations/${group.id}/messages`, { body: 'Anyone?' }), 201);
        const [listed] = dataOf(await cleo.call('GET', '/conversations'));
        expect(listed).to.include({ id: group.id, unread_count: 2 });
        expect(dataOf(await ben.call('GET', '/conversations'))[0].unread_count).to.equal(0);
        expect((await cleo.write('POST', `/conversations/${group.id}/read`)).statusCode).to.equal(204);
        expect(dataOf(await cleo.call('GET', '/conversations'))[0].unread_count).to.equal(0);

        const renamed = await ben.write('PATCH', `/conversations/${group.id}`, { title: 'Cousins & co' });
        expect(dataOf(renamed)).to.include({ title: 'Cousins & co', revision: 2 });
        expect(renamed.headers.etag).to.equal('"2"');
        expect(membersOf(dataOf(await ben.write('POST', `/conversations/${group.id}/members`, { user_id: dan.user.id })))).to.equal(ids(ben, cleo, dan));
        expect((await ben.write('DELETE', `/conversations/${group.id}/members/${cleo.user.id}`)).statusCode).to.equal(204);
        expectError(await cleo.call('GET', `/conversations/${group.id}`), 404, 'not_found');
        expect(membersOf(dataOf(await ben.call('GET', `/conversations/${group.id}`)))).to.equal(ids(ben, dan));

        // Anna, the family's manager, manages every group once she is in it; Dan, a member, only leaves.
        dataOf(await ben.write('POST', `/conversations/${group.id}/members`, { user_id: anna.user.id }));
        expectError(await dan.write('PATCH', `/conversations/${group.id}`, { title: 'Mine' }), 403, 'forbidden');
        expectError(await dan.write('POST', `/conversations/${group.id}/members`, { user_id: cleo.user.id }), 403, 'forbidden');
        expectError(await dan.write('DELETE', `/conversations/${group.id}/members/${ben.user.id}`), 403, 'forbidden');
        expect(dataOf(await anna.write('PATCH', `/conversations/${group.id}`, { title: 'Family' })).title).to.equal('Family');
        expect((await dan.write('DELETE', `/conversations/${group.id}/members/${dan.user.id}`)).statusCode).to.equal(204);
        expectError(await dan.call('GET', `/conversations/${group.id}/messages`), 404, 'not_found');
        expectError(await anna.write('DELETE', `/conversations/${group.id}/members/${dan.user.id}`), 404, 'not_found');
    });

    it('keeps a direct conversation to its two people: no name, no members added, none leaving', async () => {

        const [anna, ben, cleo] = await messagingClients(server, 3);
        const { id } = await directConversation(anna, ben);
        expectError(await anna.write('PATCH', `/conversations/${id}`, { title: 'Us' }), 400, 'invalid_request');
        expectError(await anna.write('POST', `/conversations/${id}/members`, { user_id: cleo.user.id }), 400, 'invalid_request');
        expectError(await anna.write('DELETE', `/conversations/${id}/members/${anna.user.id}`), 400, 'invalid_request');
        expectError(await anna.write('PATCH', `/conversations/${id}`, {}), 400, 'invalid_request');
    });

    it('lists the most recently active conversation first', async () => {

        const [anna, ben, cleo] = await messagingClients(server, 3);
        const withBen = await directConversation(anna, ben);
        const withCleo = await directConversation(anna, cleo);
        dataOf(await ben.write('POST', `/conversations/${withBen.id}/messages`, { body: 'Newest' }), 201);
        expect(dataOf(await anna.call('GET', '/conversations')).map((conversation: { id: string }) => conversation.id)).to.equal([withBen.id, withCleo.id]);
    });
});
