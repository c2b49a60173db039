import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import { ApiError, newIdempotencyKey, OfflineError, type Change, type MessagingClient, type OutboxItemWire } from 'family-records-desktop';

import { encodeCursor } from '../../lib/messaging/cursors';
import type { User } from '../../models/user';
import { oauthClientServer } from '../helpers/devices';
import { messagingFamily } from '../helpers/messaging';
import { testVariant } from '../helpers/server';
import { sdkClient } from './sdk-fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`the desktop SDK's messaging calls against the service (${testVariant})`, () => {

    let server: Server;
    let baseUrl: string;
    let stopped = false;

    before(async () => {

        ({ server, baseUrl } = await oauthClientServer());
    });

    after(async () => {

        if (!stopped) {
            await server.stop();
        }
    });

    /** A family of `count`, each with the SDK's client of a connected device. */
    async function family(count: number): Promise<{ users: User[]; clients: MessagingClient[] }> {

        const { users } = await messagingFamily(server, count);
        const clients = [];
        for (const user of users) {
            clients.push((await sdkClient(server, baseUrl, user)).client);
        }

        return { users, clients };
    }

    const outboxItem = (conversationId: string, body: string): OutboxItemWire => ({
        idempotency_key: newIdempotencyKey(), conversation_id: conversationId, client_time: new Date().toISOString(), body
    });

    it('says whom it acts for, lists people, starts, renames and reads conversations', async () => {

        const { users: [ann, ben, cal], clients: [asAnn, asBen] } = await family(3);
        const me = await asAnn.me();
        expect(me.user).to.equal({ id: ann.id, email: ann.email });
        expect(me.scopes).to.include(['messages:read', 'messages:write', 'files:write']);
        expect((await asAnn.people()).map((person) => person.id).sort()).to.equal([ben.id, cal.id].sort());

        const direct = await asAnn.startDirect(ben.id, newIdempotencyKey());
        expect(direct).to.include({ kind: 'direct', title: null, created_by: ann.id });
        expect((await asAnn.startDirect(ben.id)).id).to.equal(direct.id);
        const group = await asAnn.startGroup('Cousins', [ben.id], newIdempotencyKey());
        expect((await asAnn.renameGroup(group.id, 'The cousins')).title).to.equal('The cousins');
        expect((await asAnn.addMember(group.id, cal.id)).member_ids).to.include(cal.id);
        await asAnn.removeMember(group.id, cal.id);
        expect((await asAnn.conversation(group.id)).member_ids).to.not.include(cal.id);
        expect((await asBen.conversations()).map((conversation) => conversation.id)).to.include([direct.id, group.id]);

        await asAnn.send(direct.id, { body: 'Hello' }, newIdempotencyKey());
        expect((await asBen.conversation(direct.id)).unread_count).to.equal(1);
        await asBen.markRead(direct.id);
        expect((await asBen.conversation(direct.id)).unread_count).to.equal(0);

        const missing = await expect(asAnn.conversation('cnv_doesnotexist')).to.reject(ApiError);
        expect(missing).to.include({ status: 404, code: 'not_found' });
    });

    it('sends once per idempotency key, pages the history, edits with the revision seen (412 with the current message when stale) and deletes', async () => {

        const { users: [, ben], clients: [asAnn, asBen] } = await family(2);
        const conversation = await asAnn.startDirect(ben.id);
        const key = newIdempotencyKey();
        const sent = await asAnn.send(conversation.id, { body: 'Dinner on Sunday?' }, key);
        expect(await asAnn.send(conversation.id, { body: 'Dinner on Sunday?' }, key)).to.equal(sent);
        const reused = await expect(asAnn.send(conversation.id, { body: 'Something else' }, key)).to.reject(ApiError);
        expect(reused).to.include({ status: 422, code: 'idempotency_key_reused' });
        await asAnn.send(conversation.id, { body: 'Or Saturday?' }, newIdempotencyKey());

        const newest = await asBen.history(conversation.id, { limit: 1 });
        expect(newest.data.map((message) => message.body)).to.equal(['Or Saturday?']);
        const older = await asBen.history(conversation.id, { limit: 1, cursor: newest.next_cursor! });
        expect(older.data.map((message) => message.id)).to.equal([sent.id]);

        const edited = await asAnn.editMessage(sent.id, 1, 'Dinner on Saturday?');
        expect(edited).to.include({ revision: 2, body: 'Dinner on Saturday?' });
        const stale = await expect(asAnn.editMessage(sent.id, 1, 'Lunch?')).to.reject(ApiError);
        expect(stale).to.include({ status: 412, code: 'precondition_failed' });
        expect(stale.body.current).to.include({ id: sent.id, revision: 2, body: 'Dinner on Saturday?' });
        const forbidden = await expect(asBen.editMessage(sent.id, 2, 'Mine now')).to.reject(ApiError);
        expect(forbidden.code).to.equal('forbidden');

        const deleted = await asAnn.deleteMessage(sent.id, 2);
        expect(deleted).to.include({ deleted: true, body: null, revision: 3 });
        expect((await asBen.message(sent.id)).deleted).to.be.true();
    });

    it('flushes an outbox (sent, duplicate, conflict), lists and resolves the conflicts, blocks and unblocks', async () => {

        const { users: [ann, ben], clients: [asAnn, asBen] } = await family(2);
        const conversation = await asAnn.startDirect(ben.id);
        const first = outboxItem(conversation.id, 'Written on the train');
        const [sent] = await asAnn.flushOutbox([first]);
        expect(sent.outcome).to.equal('sent');

        await asBen.block(ann.id);
        expect((await asBen.blocks()).map((block) => block.user_id)).to.equal([ann.id]);
        expect((await asBen.people())[0]).to.include({ id: ann.id, blocked: true });
        const [retried, refused, discarded] = [outboxItem(conversation.id, 'Are you there?'), outboxItem(conversation.id, 'Hello?'), outboxItem(conversation.id, 'Hm.')];
        const outcomes = await asAnn.flushOutbox([first, retried, refused, discarded]);
        expect(outcomes.map((outcome) => outcome.outcome)).to.equal(['duplicate', 'conflict', 'conflict', 'conflict']);
        expect(outcomes[0].outcome === 'duplicate' && outcomes[0].message.id).to.equal(sent.outcome === 'sent' && sent.message.id);
        const conflicts = outcomes.slice(1).map((outcome) => (outcome.outcome === 'conflict' ? outcome.conflict : undefined)!);
        expect(conflicts[0]).to.include({ reason: 'blocked', status: 'open', conversation_id: conversation.id });
        expect(conflicts[0].item).to.equal(retried);

        const open = await asAnn.conflicts({ limit: 2 });
        expect(open.data.map((conflict) => conflict.id)).to.equal(conflicts.slice(0, 2).map((conflict) => conflict.id));
        const rest = await asAnn.conflicts({ limit: 2, cursor: open.next_cursor! });
        expect(rest.data.map((conflict) => conflict.id)).to.equal([conflicts[2].id]);
        expect(rest.next_cursor).to.be.null();

        const stillBlocked = await asAnn.retryConflict(conflicts[0].id, newIdempotencyKey());
        expect(stillBlocked.outcome).to.equal('conflict');
        await asBen.unblock(ann.id);
        expect(await asBen.blocks()).to.equal([]);
        const retryKey = newIdempotencyKey();
        const resolved = await asAnn.retryConflict(conflicts[0].id, retryKey);
        expect(resolved.outcome).to.equal('sent');
        expect(resolved.message!.body).to.equal('Are you there?');
        expect(resolved.conflict).to.include({ status: 'resolved', resolution: 'retried' });
        expect(await asAnn.retryConflict(conflicts[0].id, retryKey)).to.equal(resolved);

        const stale = await expect(asAnn.editConflict(conflicts[1].id, 'Hello!', newIdempotencyKey(), 0)).to.reject(ApiError);
        expect(stale.status).to.equal(412);
        const edited = await asAnn.editConflict(conflicts[1].id, 'Hello!', newIdempotencyKey(), stale.body.current.revision);
        expect(edited.message!.body).to.equal('Hello!');
        expect((await asAnn.discardConflict(conflicts[2].id, newIdempotencyKey())).resolution).to.equal('discarded');
        expect((await asAnn.conflict(conflicts[2].id)).status).to.equal('resolved');
        expect((await asAnn.conflicts()).data).to.equal([]);
        expect((await asAnn.conflicts({ status: 'resolved' })).data).to.have.length(3);
    });

    it('syncs page by page after a cursor, and answers a reset for a cursor it never had', async () => {

        const { users: [, ben], clients: [asAnn, asBen] } = await family(2);
        const conversation = await asAnn.startDirect(ben.id);
        for (const body of ['one', 'two', 'three']) {
            await asAnn.send(conversation.id, { body }, newIdempotencyKey());
        }

        const changes: Change[] = [];
        let cursor: string | undefined;
        for (let pages = 0; ; ++pages) {
            const page = await asBen.sync({ cursor, limit: 2 });
            expect(page).to.not.include('reset');
            if ('reset' in page) {
                break;
            }

            changes.push(...page.data);
            cursor = page.next_cursor;
            if (!page.has_more) {
                expect(pages).to.be.at.least(1);
                break;
            }
        }

        expect(changes.filter((change) => change.kind === 'message').map((change) => change.record.body)).to.equal(['one', 'two', 'three']);
        expect(new Set(changes.map((change) => change.cursor)).size).to.equal(changes.length);
        await asAnn.send(conversation.id, { body: 'four' }, newIdempotencyKey());
        const after = await asBen.sync({ cursor });
        expect('reset' in after ? [] : after.data.map((change) => change.record?.body)).to.equal(['four']);

        const reset = await asBen.sync({ cursor: encodeCursor({ time: new Date(), tiebreak: '999999999999' }) });
        expect(reset).to.include({ reset: true, reason: 'unknown' });
    });

    it('says offline, keeping nothing half-done, when the service stops answering', async () => {

        const { clients: [asAnn] } = await family(1);
        expect(await asAnn.conversations()).to.equal([]);
        await server.stop();
        stopped = true;
        await expect(asAnn.conversations()).to.reject(OfflineError);
        await expect(asAnn.flushOutbox([outboxItem('cnv_anything', 'Later')])).to.reject(OfflineError);
    });
});
