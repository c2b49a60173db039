import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { bodyOf, dataOf, directConversation, expectError, messagingClient, messagingClients } from './fixtures';
import { testServer } from '../../helpers/server';
import { messagingFamily } from '../../helpers/messaging';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('/messaging/v1 messages', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
        await server.start();
    });

    after(() => server.stop());

    it('sends over real HTTP and lists the history newest first, a page at a time to the last', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        const send = (token: string, body: string, key: string) => fetch(`${server.info.uri}/messaging/v1/conversations/${id}/messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify({ body })
        });

        const sentIds: string[] = [];
        for (let index = 0; index < 5; ++index) {
            const response = await send(index % 2 ? ben.token : anna.token, `Message ${index} 👋`, `key-${index}`);
            expect(response.status).to.equal(201);
            expect(response.headers.get('etag')).to.equal('"1"');
            const { data } = await response.json() as { data: Record<string, unknown> };
            expect(data).to.include({ conversation_id: id, sender_id: index % 2 ? ben.user.id : anna.user.id, body: `Message ${index} 👋`, deleted: false, revision: 1, edited_at: null });
            sentIds.push(data.id as string);
        }

        const pages: string[][] = [];
        let cursor: string | null = null;
        do {
            const response = await fetch(`${server.info.uri}/messaging/v1/conversations/${id}/messages?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${ben.token}` } });
            expect(response.status).to.equal(200);
            const page = await response.json() as { data: { id: string }[]; next_cursor: string | null };
            pages.push(page.data.map((message) => message.id));
            cursor = page.next_cursor;
        } while (cursor);

        expect(pages).to.equal([[sentIds[4], sentIds[3]], [sentIds[2], sentIds[1]], [sentIds[0]]]);
    });

    it('refuses a send without Idempotency-Key, an empty or too long text, unknown fields and a bad cursor or limit with 400', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        expectError(await anna.call('POST', `/conversations/${id}/messages`, { body: 'No key' }), 400, 'invalid_request');
        expect(bodyOf(await anna.call('POST', `/conversations/${id}/messages`, { body: 'No key' })).message).to.contain('Idempotency-Key is required');
        expectError(await anna.write('POST', `/conversations/${id}/messages`, { body: '  ' }), 400, 'invalid_request');
        expectError(await anna.write('POST', `/conversations/${id}/messages`, { body: '😀'.repeat(4001) }), 400, 'invalid_request');
        expect(dataOf(await anna.write('POST', `/conversations/${id}/messages`, { body: '😀'.repeat(4000) }), 201).body).to.have.length(8000);
        expectError(await anna.write('POST', `/conversations/${id}/messages`, { body: 'x', attachments: [] }), 400, 'invalid_request');
        expectError(await anna.write('POST', `/conversations/${id}/messages`, { body: 42 }), 400, 'invalid_request');
        for (const unstorable of ['a\u0000b', 'half \ud83d of a pair']) {
            expectError(await anna.write('POST', `/conversations/${id}/messages`, { body: unstorable }), 400, 'invalid_request');
            expectError(await anna.write('POST', '/conversations', { kind: 'group', title: unstorable, member_ids: [ben.user.id] }), 400, 'invalid_request');
        }

        expectError(await anna.write('POST', `/conversations/${id}/messages`, { body: 'x' }, { 'idempotency-key': 'é' }), 400, 'invalid_request');
        expectError(await anna.call('GET', `/conversations/${id}/messages?cursor=nonsense`), 400, 'invalid_request');
        expectError(await anna.call('GET', `/conversations/${id}/messages?limit=0`), 400, 'invalid_request');
        expectError(await anna.call('GET', `/conversations/${id}/messages?order=asc`), 400, 'invalid_request');
    });

    it('edits and deletes your message with If-Match of the revision seen, answering the new ETag; a tombstone keeps its place', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        const sent = dataOf(await anna.write('POST', `/conversations/${id}/messages`, { body: 'Helo' }), 201);
        dataOf(await ben.write('POST', `/conversations/${id}/messages`, { body: 'Hi' }), 201);

        const edited = await anna.write('PATCH', `/messages/${sent.id}`, { body: 'Hello' }, { 'if-match': '"1"' });
        expect(dataOf(edited)).to.include({ body: 'Hello', revision: 2 });
        expect(dataOf(edited).edited_at).to.be.a.string();
        expect(edited.headers.etag).to.equal('"2"');

        const read = await ben.call('GET', `/messages/${sent.id}`);
        expect(read.headers.etag).to.equal('"2"');
        expect((await ben.call('GET', `/messages/${sent.id}`, undefined, { 'if-none-match': '"2"' })).statusCode).to.equal(304);

        const deleted = await anna.write('DELETE', `/messages/${sent.id}`, undefined, { 'if-match': '"2"' });
        expect(dataOf(deleted)).to.include({ id: sent.id, body: null, attachments: [], deleted: true, revision: 3 });
        expect(deleted.headers.etag).to.equal('"3"');
        const history = bodyOf(await ben.call('GET', `/conversations/${id}/messages`)).data;
        expect(history.map((message: { id: string; deleted: boolean }) => [message.id, message.deleted])).to.equal([[history[0].id, false], [sent.id, true]]);
        expectError(await anna.write('PATCH', `/messages/${sent.id}`, { body: 'Back' }, { 'if-match': '"3"' }), 409, 'conflict');
    });

    it('answers a stale If-Match with 412 carrying the message as it is now, and changes nothing', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        const sent = dataOf(await anna.write('POST', `/conversations/${id}/messages`, { body: 'First' }), 201);
        dataOf(await anna.write('PATCH', `/messages/${sent.id}`, { body: 'Second' }, { 'if-match': '"1"' }));

        for (const [method, payload] of [['PATCH', { body: 'Third' }], ['DELETE', undefined]] as const) {
            const stale = await anna.write(method, `/messages/${sent.id}`, payload, { 'if-match': '"1"' });
            expectError(stale, 412, 'precondition_failed');
            expect(bodyOf(stale).current).to.include({ id: sent.id, body: 'Second', revision: 2, deleted: false });
            expect(stale.headers.etag).to.equal('"2"');
        }

        expect(dataOf(await ben.call('GET', `/messages/${sent.id}`))).to.include({ body: 'Second', revision: 2 });
    });

    it('requires If-Match naming one revision (428 without, 400 for *, a list or a weak tag), and only the sender edits', async () => {

        const [anna, ben] = await messagingClients(server, 2);
        const { id } = await directConversation(anna, ben);
        const sent = dataOf(await anna.write('POST', `/conversations/${id}/messages`, { body: 'Mine' }), 201);
        expectError(await anna.write('PATCH', `/messages/${sent.id}`, { body: 'x' }), 428, 'precondition_required');
        expectError(await anna.write('DELETE', `/messages/${sent.id}`), 428, 'precondition_required');
        for (const ifMatch of ['*', '"1", "2"', 'W/"1"', '1', '"one"']) {
            expectError(await anna.write('PATCH', `/messages/${sent.id}`, { body: 'x' }, { 'if-match': ifMatch }), 400, 'invalid_request');
        }

        expectError(await ben.write('PATCH', `/messages/${sent.id}`, { body: 'Not mine' }, { 'if-match': '"1"' }), 403, 'forbidden');
        expectError(await ben.write('DELETE', `/messages/${sent.id}`, undefined, { 'if-match': '"1"' }), 403, 'forbidden');
        expect(dataOf(await ben.call('GET', `/messages/${sent.id}`))).to.include({ body: 'Mine', revision: 1 });
    });

    it('refuses sends and edits in a direct conversation across a block with 403 blocked; a group hides the blocked one\'s messages from the blocker', async () => {

        const [anna, ben, cleo] = await messagingClients(server, 3);
        const direct = await directConversation(anna, ben);
        const sent = dataOf(await ben.write('POST', `/conversations/${direct.id}/messages`, { body: 'Before' }), 201);
        const group = dataOf(await anna.write('POST', '/conversations', { kind: 'group', title: 'Three', member_ids: [ben.user.id, cleo.user.id] }), 201);

        expect((await anna.write('PUT', `/blocks/${ben.user.id}`)).statusCode).to.equal(201);
        expectError(await ben.write('POST', `/conversations/${direct.id}/messages`, { body: 'Hello?' }), 403, 'blocked');
        expectError(await anna.write('POST', `/conversations/${direct.id}/messages`, { body: 'Hello?' }), 403, 'blocked');
        expectError(await ben.write('PATCH', `/messages/${sent.id}`, { body: 'Edited' }, { 'if-match': '"1"' }), 403, 'blocked');

        const inGroup = dataOf(await ben.write('POST', `/conversations/${group.id}/messages`, { body: 'In the group' }), 201);
        expectError(await anna.call('GET', `/messages/${inGroup.id}`), 404, 'not_found');
        expect(dataOf(await cleo.call('GET', `/messages/${inGroup.id}`)).body).to.equal('In the group');
        expect(dataOf(await anna.call('GET', `/messages/${sent.id}`)).body).to.equal('Before');
        dataOf(await cleo.write('POST', `/conversations/${group.id}/messages`, { body: 'Cleo here' }), 201);
        expect(bodyOf(await anna.call('GET', `/conversations/${group.id}/messages`)).data.map((message: { body: string }) => message.body)).to.equal(['Cleo here']);
        expect(bodyOf(await cleo.call('GET', `/conversations/${group.id}/messages`)).data).to.have.length(2);
        expect(dataOf(await anna.call('GET', `/conversations/${group.id}`)).unread_count).to.equal(1);

        expect((await anna.write('DELETE', `/blocks/${ben.user.id}`)).statusCode).to.equal(204);
        dataOf(await ben.write('POST', `/conversations/${direct.id}/messages`, { body: 'Hello again' }), 201);
    });

    it('refuses a token without messages:write on every write with 403 token_scope, and one without messages:read on reads', async () => {

        const { users } = await messagingFamily(server, 2);
        const writer = await messagingClient(server, users[0]);
        const { id } = await directConversation(writer, await messagingClient(server, users[1]));
        const readOnly = await messagingClient(server, users[0], 'profile messages:read');
        const writeOnly = await messagingClient(server, users[0], 'messages:write');

        expect(dataOf(await readOnly.call('GET', `/conversations/${id}/messages`))).to.equal([]);
        expectError(await readOnly.write('POST', `/conversations/${id}/messages`, { body: 'x' }), 403, 'token_scope');
        expectError(await readOnly.write('POST', '/conversations', { kind: 'direct', user_id: users[1].id }), 403, 'token_scope');
        expectError(await readOnly.write('PUT', `/blocks/${users[1].id}`), 403, 'token_scope');
        expect(bodyOf(await readOnly.write('POST', `/conversations/${id}/read`)).message).to.contain('messages:write');
        expectError(await writeOnly.call('GET', '/conversations'), 403, 'token_scope');
        expectError(await writeOnly.call('GET', '/people'), 403, 'token_scope');
        dataOf(await writeOnly.write('POST', `/conversations/${id}/messages`, { body: 'x' }), 201);
    });
});
