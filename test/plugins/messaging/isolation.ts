import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { bodyOf, dataOf, directConversation, expectError, messagingClients, type MessagingClient } from './fixtures';
import { outboxItem } from '../../helpers/messaging-api';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** What a request of one route needs to pass validation: its path ids, body and headers. */
interface Ids {
    conversation: string;
    message: string;
    /** A member of the conversation. */
    member: string;
    /** The owner's upload and conflict. */
    upload: string;
    conflict: string;
}

type Case = (ids: Ids) => { path: string; payload?: object; headers?: Record<string, string> };

/** Every messaging route naming a record of the family, by method and path template, with a request that is valid but for whose records they are. */
const routeCases: Record<string, Case> = {
    'GET /conversations/{id}': (ids) => ({ path: `/conversations/${ids.conversation}` }),
    'PATCH /conversations/{id}': (ids) => ({ path: `/conversations/${ids.conversation}`, payload: { title: 'Taken over' } }),
    'POST /conversations/{id}/members': (ids) => ({ path: `/conversations/${ids.conversation}/members`, payload: { user_id: ids.member } }),
    'DELETE /conversations/{id}/members/{user_id}': (ids) => ({ path: `/conversations/${ids.conversation}/members/${ids.member}` }),
    'POST /conversations/{id}/read': (ids) => ({ path: `/conversations/${ids.conversation}/read` }),
    'GET /conversations/{id}/messages': (ids) => ({ path: `/conversations/${ids.conversation}/messages` }),
    'POST /conversations/{id}/messages': (ids) => ({ path: `/conversations/${ids.conversation}/messages`, payload: { body: 'Let me in' } }),
    'GET /messages/{id}': (ids) => ({ path: `/messages/${ids.message}` }),
    'GET /messages/{id}/attachments/{upload_id}': (ids) => ({ path: `/messages/${ids.message}/attachments/${ids.upload}` }),
    'PATCH /messages/{id}': (ids) => ({ path: `/messages/${ids.message}`, payload: { body: 'Changed' }, headers: { 'if-match': '"1"' } }),
    'DELETE /messages/{id}': (ids) => ({ path: `/messages/${ids.message}`, headers: { 'if-match': '"1"' } }),
    'PUT /blocks/{user_id}': (ids) => ({ path: `/blocks/${ids.member}` }),
    'DELETE /blocks/{user_id}': (ids) => ({ path: `/blocks/${ids.member}` }),
    'GET /uploads/{id}': (ids) => ({ path: `/uploads/${ids.upload}`, headers: { 'tus-resumable': '1.0.0' } }),
    'PATCH /uploads/{id}': (ids) => ({
        path: `/uploads/${ids.upload}`,
        payload: Buffer.from('0123456789'),
        headers: { 'tus-resumable': '1.0.0', 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }
    }),
    'DELETE /uploads/{id}': (ids) => ({ path: `/uploads/${ids.upload}`, headers: { 'tus-resumable': '1.0.0' } }),
    'GET /conflicts/{id}': (ids) => ({ path: `/conflicts/${ids.conflict}` }),
    'POST /conflicts/{id}/retry': (ids) => ({ path: `/conflicts/${ids.conflict}/retry`, headers: { 'if-match': '"1"' } }),
    'POST /conflicts/{id}/edit': (ids) => ({ path: `/conflicts/${ids.conflict}/edit`, payload: { body: 'Taken over' }, headers: { 'if-match': '"1"' } }),
    'POST /conflicts/{id}/discard': (ids) => ({ path: `/conflicts/${ids.conflict}/discard`, headers: { 'if-match': '"1"' } })
};

/** Routes about people rather than a conversation or a person's own records: someone of the same family may block anyone of it. */
const aboutPeople = new Set(['PUT /blocks/{user_id}', 'DELETE /blocks/{user_id}']);

describe('/messaging/v1 isolation', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    it('answers 404 not_found on every route naming a record to another family\'s token and, but for blocks, to another member\'s of the family, changing nothing', async () => {

        const [owner, member, nonMember] = await messagingClients(server, 3);
        const [stranger, strangersFriend] = await messagingClients(server, 2);
        const group = dataOf(await owner.write('POST', '/conversations', { kind: 'group', title: 'Private', member_ids: [member.user.id] }), 201);
        const message = dataOf(await owner.write('POST', `/conversations/${group.id}/messages`, { body: 'Secret' }), 201);
        const upload = await owner.write('POST', '/uploads', undefined, { 'tus-resumable': '1.0.0', 'upload-length': '10' });
        expect(upload.statusCode, upload.payload).to.equal(201);
        const uploadUrl = upload.headers.location as string;
        // An item for a conversation the owner is not in: a conflict of theirs.
        const flushed = await owner.write('POST', '/outbox', { items: [outboxItem('cnv_00000000000000000000', 'Offline')] });
        const [{ conflict }] = dataOf(flushed);
        const ids: Ids = { conversation: group.id, message: message.id, member: member.user.id, upload: uploadUrl.slice(uploadUrl.lastIndexOf('/') + 1), conflict: conflict.id };

        const named = server.table().filter((route) => route.path.startsWith('/messaging/v1/') && route.path.includes('{'))
            .map((route) => `${route.method.toUpperCase()} ${route.path.slice('/messaging/v1'.length)}`);
        expect(named.filter((route) => !routeCases[route]), 'routes the walk has no request for').to.equal([]);

        const walk = async (client: MessagingClient, routes: string[]) => {

            for (const route of routes) {
                const [method] = route.split(' ');
                const { path, payload, headers } = routeCases[route](ids);
                const response = await client.write(method, path, payload, headers);
                expectError(response, 404, 'not_found');
                expect(response.payload, route).to.not.contain('Secret');
            }
        };

        await walk(stranger, named);
        await walk(nonMember, named.filter((route) => !aboutPeople.has(route)));

        // Nor through ids in a body, nor in the lists.
        expectError(await stranger.write('POST', '/conversations', { kind: 'direct', user_id: owner.user.id }), 404, 'not_found');
        expectError(await stranger.write('POST', '/conversations', { kind: 'group', title: 'Mixed', member_ids: [strangersFriend.user.id, owner.user.id] }), 404, 'not_found');
        const own = dataOf(await stranger.write('POST', '/conversations', { kind: 'group', title: 'Ours', member_ids: [strangersFriend.user.id] }), 201);
        expectError(await stranger.write('POST', `/conversations/${own.id}/members`, { user_id: owner.user.id }), 404, 'not_found');
        expect(dataOf(await stranger.call('GET', '/conversations')).map((conversation: { id: string }) => conversation.id)).to.equal([own.id]);
        expect(dataOf(await stranger.call('GET', '/people')).map((person: { id: string }) => person.id)).to.equal([strangersFriend.user.id]);
        expect(dataOf(await nonMember.call('GET', '/conversations'))).to.equal([]);

        const now = dataOf(await member.call('GET', `/conversations/${group.id}`));
        expect(now).to.include({ title: 'Private', revision: 1, unread_count: 1 });
        expect(now.member_ids.sort()).to.equal([owner.user.id, member.user.id].sort());
        expect(bodyOf(await member.call('GET', `/conversations/${group.id}/messages`)).data).to.equal([message]);
        expect(dataOf(await member.call('GET', '/blocks'))).to.equal([]);
        expect(dataOf(await owner.call('GET', `/conflicts/${conflict.id}`))).to.include({ status: 'open', revision: 1 });
        expect(bodyOf(await owner.call('GET', `/uploads/${ids.upload}`)).data).to.include({ offset_bytes: 0, complete: false });
    });

    it('answers an id of the wrong shape in a path with 404, like an unknown one, without reading it', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        const requests = [['GET', `/conversations/${id}x`], ['GET', '/conversations/msg_00000000000000000000'], ['GET', '/messages/%00'], ['GET', `/messages/${id}`],
            ['DELETE', `/conversations/${id}/members/nobody`], ['PUT', '/blocks/usr_short']];
        for (const [method, path] of requests) {
            expectError(await anna.write(method, path), 404, 'not_found');
        }
    });
});
