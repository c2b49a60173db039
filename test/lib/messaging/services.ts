import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { blockUser, unblockUser } from '../../../lib/messaging/blocks';
import { addGroupMember, createGroup, getConversation, listConversations, markRead, removeGroupMember, renameGroup, startDirectConversation } from '../../../lib/messaging/conversations';
import { decodeCursor, encodeCursor } from '../../../lib/messaging/cursors';
import { deleteMessage, editMessage, messageHistory, sendMessage, StaleRevisionError } from '../../../lib/messaging/messages';
import { syncChanges } from '../../../lib/messaging/sync';
import { messagingFamily } from '../../helpers/messaging';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The code and status a service refusal carries. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; statusCode: number }> {

    const error = await expect(promise).to.reject();
    return { code: (error as any).code, statusCode: (error as any).statusCode };
}

describe('messaging services', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    const context = () => server.app.services.messaging;

    it('keeps one direct conversation per pair, and refuses people of another family with 404', async () => {

        const { actors, users } = await messagingFamily(server, 2);
        const stranger = await messagingFamily(server, 1);
        const first = await startDirectConversation(context(), actors[0], users[1].id);
        const again = await startDirectConversation(context(), actors[1], users[0].id);
        expect(first.created).to.be.true();
        expect(again).to.include({ created: false });
        expect(again.conversation.id).to.equal(first.conversation.id);
        expect(await refusal(startDirectConversation(context(), actors[0], stranger.users[0].id))).to.equal({ code: 'not_found', statusCode: 404 });
        expect(await refusal(startDirectConversation(context(), actors[0], users[0].id))).to.equal({ code: 'invalid_request', statusCode: 400 });
        expect(await refusal(getConversation(context(), stranger.actors[0], first.conversation.id))).to.equal({ code: 'not_found', statusCode: 404 });
    });

    it('sends, edits and deletes with revisions: a stale one is refused with the current message, a deleted one stays as a tombstone', async () => {

        const { actors, users } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const sent = await sendMessage(context(), actors[0], conversation.id, { body: 'Hello 👋' });
        expect(sent.revision).to.equal(1);
        const edited = await editMessage(context(), actors[0], sent.id, 'Hello again', 1);
        expect(edited.get()).to.include({ revision: 2, body: 'Hello again' });

        const stale = await expect(editMessage(context(), actors[0], sent.id, 'Late', 1)).to.reject(StaleRevisionError);
        expect(stale.current.revision).to.equal(2);
        expect(await refusal(editMessage(context(), actors[1], sent.id, 'Not mine', 2))).to.equal({ code: 'forbidden', statusCode: 403 });

        const { message } = await deleteMessage(context(), actors[0], sent.id, 2);
        expect(message.get()).to.include({ body: null, revision: 3 });
        expect(message.deleted_at).to.be.a.date();
        const history = await messageHistory(context(), actors[1], conversation.id, {});
        expect(history.messages.map((each) => each.id)).to.equal([sent.id]);
        expect(await refusal(editMessage(context(), actors[0], sent.id, 'Back', 3))).to.equal({ code: 'conflict', statusCode: 409 });
    });

    it('pages a history newest first with opaque cursors, and refuses a cursor it did not make', async () => {

        const { actors, users } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const sent = [];
        for (let index = 0; index < 5; ++index) {
            sent.push((await sendMessage(context(), actors[index % 2], conversation.id, { body: `m${index}` })).id);
        }

        const first = await messageHistory(context(), actors[0], conversation.id, { limit: 3 });
        const second = await messageHistory(context(), actors[0], conversation.id, { limit: 3, cursor: first.nextCursor! });
        expect([...first.messages, ...second.messages].map((message) => message.body)).to.equal(['m4', 'm3', 'm2', 'm1', 'm0']);
        expect(second.nextCursor).to.be.null();
        expect(await refusal(messageHistory(context(), actors[0], conversation.id, { cursor: 'bm9wZQ' }))).to.equal({ code: 'invalid_request', statusCode: 400 });
        expect(decodeCursor(encodeCursor({ time: new Date(0), tiebreak: 'msg_x' })).tiebreak).to.equal('msg_x');
    });

    it('blocks: no direct conversation or message either way; in groups the blocker does not see the blocked one\'s messages', async () => {

        const { actors, users } = await messagingFamily(server, 3);
        const { conversation: direct } = await startDirectConversation(context(), actors[0], users[1].id);
        const group = await createGroup(context(), actors[0], 'Cousins', [users[1].id, users[2].id]);
        await sendMessage(context(), actors[1], group.id, { body: 'before the block' });

        expect((await blockUser(context(), actors[0], users[1].id)).changed).to.be.true();
        expect((await blockUser(context(), actors[0], users[1].id)).changed).to.be.false();
        expect(await refusal(sendMessage(context(), actors[1], direct.id, { body: 'hi' }))).to.equal({ code: 'blocked', statusCode: 403 });
        expect(await refusal(sendMessage(context(), actors[0], direct.id, { body: 'hi' }))).to.equal({ code: 'blocked', statusCode: 403 });
        await blockUser(context(), actors[2], users[1].id);
        expect(await refusal(startDirectConversation(context(), actors[1], users[2].id))).to.equal({ code: 'blocked', statusCode: 403 });
        await unblockUser(context(), actors[2], users[1].id);
        expect((await startDirectConversation(context(), actors[1], users[2].id)).created).to.be.true();

        await sendMessage(context(), actors[1], group.id, { body: 'in the group' });
        await sendMessage(context(), actors[2], group.id, { body: 'from the third' });
        const seen = await messageHistory(context(), actors[0], group.id, {});
        expect(seen.messages.map((message) => message.body)).to.equal(['from the third']);
        const unread = (await listConversations(context(), actors[0])).find((view) => view.conversation.id === group.id)!;
        expect(unread.unreadCount).to.equal(1);

        await unblockUser(context(), actors[0], users[1].id);
        expect((await messageHistory(context(), actors[0], group.id, {})).messages).to.have.length(3);
        await sendMessage(context(), actors[1], direct.id, { body: 'unblocked' });
    });

    it('lets the creator or a manager change a group, anyone leave it, and counts unread messages until read', async () => {

        const { actors, users } = await messagingFamily(server, 4);
        const group = await createGroup(context(), actors[1], '  Reunion  ', [users[2].id]);
        expect(group.title).to.equal('Reunion');
        expect(await refusal(renameGroup(context(), actors[2], group.id, 'Mine'))).to.equal({ code: 'forbidden', statusCode: 403 });
        expect(await refusal(addGroupMember(context(), actors[0], group.id, users[3].id))).to.equal({ code: 'not_found', statusCode: 404 });
        await addGroupMember(context(), actors[1], group.id, users[0].id);
        await addGroupMember(context(), actors[0], group.id, users[3].id);
        expect((await renameGroup(context(), actors[0], group.id, 'Summer reunion')).title).to.equal('Summer reunion');
        await removeGroupMember(context(), actors[3], group.id, users[3].id);
        expect(await refusal(getConversation(context(), actors[3], group.id))).to.equal({ code: 'not_found', statusCode: 404 });
        expect(await refusal(createGroup(context(), actors[0], ' ', []))).to.equal({ code: 'invalid_request', statusCode: 400 });

        await sendMessage(context(), actors[1], group.id, { body: 'one' });
        await sendMessage(context(), actors[1], group.id, { body: 'two' });
        expect((await getConversation(context(), actors[2], group.id)).unreadCount).to.equal(2);
        expect((await getConversation(context(), actors[1], group.id)).unreadCount).to.equal(0);
        const before = await syncChanges(context(), actors[1]) as { next_cursor: string };
        const readerBefore = await syncChanges(context(), actors[2]) as { next_cursor: string };
        await markRead(context(), actors[2], group.id);
        await markRead(context(), actors[2], group.id);
        expect((await getConversation(context(), actors[2], group.id)).unreadCount).to.equal(0);

        // The read mark is a change for the reader's other devices alone, once.
        const readerAfter = await syncChanges(context(), actors[2], readerBefore.next_cursor) as { changes: any[] };
        expect(readerAfter.changes.map((change) => `${change.kind}:${change.action}`)).to.equal(['conversation:updated']);
        expect(readerAfter.changes[0].record).to.include({ id: group.id, unread_count: 0 });
        expect((await syncChanges(context(), actors[1], before.next_cursor) as { changes: unknown[] }).changes).to.equal([]);
    });

    it('syncs the changes a user sees in commit order, with records, and a reset past the retention window', async () => {

        const { actors, users } = await messagingFamily(server, 3);
        const start = await syncChanges(context(), actors[2]);
        expect(start).to.include({ changes: [], has_more: false });
        const cursor = (start as { next_cursor: string }).next_cursor;

        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const group = await createGroup(context(), actors[0], 'All', [users[1].id, users[2].id]);
        const sent = await sendMessage(context(), actors[0], group.id, { body: 'to all' });
        await sendMessage(context(), actors[0], conversation.id, { body: 'private' });
        await deleteMessage(context(), actors[0], sent.id);
        await blockUser(context(), actors[0], users[1].id);

        const page = await syncChanges(context(), actors[2], cursor) as { changes: any[]; next_cursor: string };
        expect(page.changes.map((change) => `${change.kind}:${change.action}`)).to.equal([
            'conversation:created', 'member:created', 'member:created', 'member:created', 'message:created', 'message:deleted'
        ]);
        expect(page.changes[4].record).to.include({ id: sent.id, deleted: true, body: null });
        expect((await syncChanges(context(), actors[2], page.next_cursor) as { changes: unknown[] }).changes).to.equal([]);

        const paged = await syncChanges(context(), actors[2], cursor, 4) as { changes: unknown[]; has_more: boolean; next_cursor: string };
        expect(paged).to.include({ has_more: true });
        expect((await syncChanges(context(), actors[2], paged.next_cursor) as { changes: unknown[] }).changes).to.have.length(2);

        const old = encodeCursor({ time: new Date(Date.now() - 31 * 24 * 3600 * 1000), tiebreak: '1' });
        expect(await syncChanges(context(), actors[2], old)).to.include({ reset: true, reason: 'expired' });
        expect(await syncChanges(context(), actors[2], encodeCursor({ time: new Date(), tiebreak: '999999999999' }))).to.include({ reset: true, reason: 'unknown' });
    });
});
