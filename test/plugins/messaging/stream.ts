import { once } from 'events';

import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { blockUser } from '../../../lib/messaging/blocks';
import { addGroupMember, createGroup, removeGroupMember, startDirectConversation } from '../../../lib/messaging/conversations';
import { deleteMessage, editMessage, sendMessage } from '../../../lib/messaging/messages';
import { messagingFamily } from '../../helpers/messaging';
import { editPolicyFile } from '../../helpers/policy-files';
import { copyPolicies } from '../../helpers/server';
import { listeningServer, until } from '../stream/client';
import { changesOf, deviceToken, openedRecovery, openRecovery, receivedChanges, recoverySuiteTitle } from './stream-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(recoverySuiteTitle('delivery'), () => {

    let server: Server;

    before(async () => {

        const policiesDir = copyPolicies();
        editPolicyFile(policiesDir, 'messaging.yaml', 'heartbeat_seconds: 15', 'heartbeat_seconds: 0.05');
        editPolicyFile(policiesDir, 'messaging.yaml', 'max_streams_per_device: 5', 'max_streams_per_device: 3');
        server = await listeningServer({ policiesDir });
    });

    after(() => server.stop());

    const context = () => server.app.services.messaging;

    it('starts with a retry hint and `ready` naming its cursor, then carries new, edited and deleted messages as sync\'s entries', async () => {

        const { actors, users } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const stream = await openedRecovery(server, await deviceToken(server, users[1]));
        expect(stream.retry).to.equal(3000);
        const [ready] = stream.events;
        expect(ready.event).to.equal('ready');
        expect(ready.data).to.equal({ cursor: ready.id });
        expect(stream.response.headers['content-type']).to.equal('text/event-stream; charset=utf-8');

        const sent = await sendMessage(context(), actors[0], conversation.id, { body: 'Dinner at 7? 🍝' });
        await editMessage(context(), actors[0], sent.id, 'Dinner at 8?', 1);
        await deleteMessage(context(), actors[0], sent.id, 2);
        const [created, edited, deleted] = await receivedChanges(stream, 3);

        expect(created.event).to.equal('message.created');
        expect(created.data).to.include({ cursor: created.id, kind: 'message', action: 'created', conversation_id: conversation.id, record_id: sent.id, revision: 1 });
        expect(edited.event).to.equal('message.updated');
        expect(edited.data.revision).to.equal(2);
        expect(deleted.event).to.equal('message.deleted');
        expect(deleted.data.record).to.include({ id: sent.id, deleted: true, body: null, revision: 3 });

        // The same entries as sync's after the stream's first cursor.
        const sync = await server.inject({ url: `/messaging/v1/sync?cursor=${ready.id}`, headers: { authorization: `Bearer ${await deviceToken(server, users[1])}` } });
        expect((sync.result as any).data.map((entry: any) => entry.cursor)).to.equal([created.id, edited.id, deleted.id]);
        stream.close();
    });

    it('sends heartbeats as comment lines on an idle stream', async () => {

        const { users } = await messagingFamily(server, 1);
        const stream = await openedRecovery(server, await deviceToken(server, users[0]));
        await until(() => stream.comments.length >= 2, 'two heartbeats');
        expect(stream.comments[0]).to.equal('heartbeat');
        stream.close();
    });

    it('carries membership, conversation and block changes to whom they concern, and nothing to the others', async () => {

        const { actors, users } = await messagingFamily(server, 3);
        const [manager, member, outsider] = await Promise.all(users.map(async (user) => openedRecovery(server, await deviceToken(server, user))));

        const group = await createGroup(context(), actors[0], 'Cousins', [users[1].id]);
        const [created] = await receivedChanges(member, 1);
        expect(created.event).to.equal('conversation.created');
        expect(created.data.record).to.include({ id: group.id, title: 'Cousins' });
        expect(created.data.record.member_ids).to.only.include([users[0].id, users[1].id]);
        await receivedChanges(member, 3);           // the conversation and its two members
        expect(changesOf(member).map((event) => event.event)).to.equal(['conversation.created', 'member.created', 'member.created']);

        await blockUser(context(), actors[1], users[2].id);
        const [, , , blocked] = await receivedChanges(member, 4);
        expect(blocked.event).to.equal('block.created');
        expect(blocked.data).to.include({ kind: 'block', record_id: users[2].id, conversation_id: null });

        await receivedChanges(manager, 3);
        await sendMessage(context(), actors[2], (await startDirectConversation(context(), actors[2], users[0].id)).conversation.id, { body: 'Hi' });
        await receivedChanges(outsider, 4);          // their own direct conversation (created, two members) and the message
        expect(changesOf(outsider).every((event) => event.data.conversation_id !== group.id && event.data.kind !== 'block')).to.be.true();
        expect(changesOf(member).length).to.equal(4);
        [manager, member, outsider].forEach((stream) => stream.close());
    });

    it('follows membership while open: a member removed stops getting the group\'s messages, one added starts', async () => {

        const { actors, users } = await messagingFamily(server, 3);
        const group = await createGroup(context(), actors[0], 'Book club', [users[1].id]);
        const [leaving, joining] = [await openedRecovery(server, await deviceToken(server, users[1])), await openedRecovery(server, await deviceToken(server, users[2]))];

        await sendMessage(context(), actors[0], group.id, { body: 'before' });
        await receivedChanges(leaving, 1);
        await removeGroupMember(context(), actors[0], group.id, users[1].id);
        await addGroupMember(context(), actors[0], group.id, users[2].id);
        const after = await sendMessage(context(), actors[0], group.id, { body: 'after' });

        const joined = await receivedChanges(joining, 3);
        expect(joined.map((event) => event.event)).to.equal(['conversation.updated', 'member.created', 'message.created']);
        expect(joined[2].data.record_id).to.equal(after.id);
        const left = await receivedChanges(leaving, 2);
        expect(left[1]).to.include({ event: 'member.deleted' });
        expect(left[1].data).to.include({ conversation_id: null, record_id: group.id });

        // Nothing of the group after the removal, however long one waits for the joining member's stream to have it all.
        expect(changesOf(leaving).map((event) => event.data.record_id).includes(after.id)).to.be.false();
        leaving.close();
        joining.close();
    });

    it('never carries another family\'s changes, nor a conversation\'s to a non-member of the family', async () => {

        const family = await messagingFamily(server, 3);
        const other = await messagingFamily(server, 1);
        const watching = [await openedRecovery(server, await deviceToken(server, family.users[2])), await openedRecovery(server, await deviceToken(server, other.users[0]))];

        const { conversation } = await startDirectConversation(context(), family.actors[0], family.users[1].id);
        await sendMessage(context(), family.actors[0], conversation.id, { body: 'private' });
        // Something each of them sees, after: once it has arrived, the private message would have too.
        await blockUser(context(), family.actors[2], family.users[0].id);
        const stranger = await messagingFamily(server, 2);
        await blockUser(context(), stranger.actors[0], stranger.users[1].id);
        await sendMessage(context(), other.actors[0], (await createGroup(context(), other.actors[0], 'Alone', [])).id, { body: 'mine' });

        const [nonMember] = await receivedChanges(watching[0], 1);
        expect(nonMember.event).to.equal('block.created');
        await receivedChanges(watching[1], 3);
        expect(changesOf(watching[1]).map((event) => event.event)).to.equal(['conversation.created', 'member.created', 'message.created']);
        expect(changesOf(watching[0]).length).to.equal(1);
        watching.forEach((stream) => stream.close());
    });

    it('hides a blocked sender\'s group messages from the blocker, as sync does', async () => {

        const { actors, users } = await messagingFamily(server, 3);
        const group = await createGroup(context(), actors[0], 'Everyone', [users[1].id, users[2].id]);
        await blockUser(context(), actors[1], users[2].id);
        const stream = await openedRecovery(server, await deviceToken(server, users[1]));
        await sendMessage(context(), actors[2], group.id, { body: 'from the blocked one' });
        const visible = await sendMessage(context(), actors[0], group.id, { body: 'from the manager' });

        const [first] = await receivedChanges(stream, 1);
        expect(first.data.record_id).to.equal(visible.id);
        stream.close();
    });

    it('refuses one stream more than the policy allows a device with 429, and a token without messages:read with 403', async () => {

        const { users } = await messagingFamily(server, 1);
        const token = await deviceToken(server, users[0]);
        const streams = [await openedRecovery(server, token), await openedRecovery(server, token), await openedRecovery(server, token)];
        const refused = await openRecovery(server, token);
        expect(refused.statusCode).to.equal(429);
        await refused.end();
        expect(JSON.parse(refused.text)).to.include({ code: 'rate_limited', message: 'This device has 3 recovery streams open already, the most it may: close one first.' });
        expect(refused.response.headers['retry-after']).to.equal('3');
        // Another device of the same user has streams of its own.
        (await openedRecovery(server, await deviceToken(server, users[0]))).close();

        const profileOnly = await openRecovery(server, await deviceToken(server, users[0], 'profile'));
        expect(profileOnly.statusCode).to.equal(403);
        await profileOnly.end();
        expect(JSON.parse(profileOnly.text)).to.include({ code: 'token_scope' });
        streams.forEach((stream) => stream.close());
    });

    it('refuses a cursor it did not make with 400', async () => {

        const { users } = await messagingFamily(server, 1);
        const token = await deviceToken(server, users[0]);
        for (const options of [{ query: 'cursor=not%20a%20cursor' }, { headers: { 'last-event-id': 'bm90LWEtY3Vyc29y' } }, { query: 'cursor=MTIzNDU2Nzg5MDEyMy5tc2dfYWJj' }]) {
            const refused = await openRecovery(server, token, options);
            expect(refused.statusCode, JSON.stringify(options)).to.equal(400);
            await refused.end();
            expect(JSON.parse(refused.text)).to.include({ code: 'invalid_request' });
        }
    });

    it('lets go of the stream within a second of the client leaving', async () => {

        const { users } = await messagingFamily(server, 1);
        const hub = server.plugins.messaging.recoveryStreams;
        const bus = server.app.services.messaging.bus;
        await until(() => hub.size === 0, 'earlier tests\' streams to close');
        const baseline = bus.listenerCount();
        const stream = await openedRecovery(server, await deviceToken(server, users[0]));
        expect(hub.size).to.equal(1);
        expect(bus.listenerCount()).to.equal(baseline + 1);

        const started = Date.now();
        const removed = once(hub, 'removed');
        stream.close();
        await removed;
        expect(Date.now() - started).to.be.below(1000);
        expect(hub.size).to.equal(0);
        expect(bus.listenerCount()).to.equal(baseline);
    });
});
