import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';

import { blockUser, unblockUser } from '../../../lib/messaging/blocks';
import type { OutboxItem } from '../../../lib/messaging/conflicts';
import { startDirectConversation } from '../../../lib/messaging/conversations';
import { messageHistory } from '../../../lib/messaging/messages';
import { syncChanges, type SyncEntry } from '../../../lib/messaging/sync';
import { TestMessageUploads } from '../../helpers/message-uploads';
import { connectedFamily, messagingRequest, outboxItem } from '../../helpers/messaging-api';
import { testServer, testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

type Json = Record<string, any>;

describe(`/messaging/v1/conflicts (${testVariant})`, () => {

    let server: Server;
    const uploads = new TestMessageUploads();

    before(async () => {

        server = await testServer();
        server.app.services.messaging.uploads = uploads;
    });

    after(() => server.stop());

    const context = () => server.app.services.messaging;
    const ok = (response: ServerInjectResponse, status = 200): Json => {

        expect(response.statusCode, response.payload).to.equal(status);
        return response.result as Json;
    };

    /** Two people of a family with a direct conversation, the second blocking the first, who flushes `items` (or one item) then: each a conflict. */
    async function blockedConflicts(texts = ['Written offline']) {

        const family = await connectedFamily(server, 2);
        const { users, actors, tokens } = family;
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        await blockUser(context(), actors[1], users[0].id);
        const items = texts.map((text) => outboxItem(conversation.id, text));
        const outcomes = ok(await messagingRequest(server, tokens[0], 'POST', '/outbox', { items })).data as Json[];
        return { ...family, conversation, items, conflicts: outcomes.map((outcome) => outcome.conflict as Json) };
    }

    const bodies = async (family: Awaited<ReturnType<typeof blockedConflicts>>) => {

        const { messages } = await messageHistory(context(), family.actors[0], family.conversation.id, {});
        return messages.map((message) => message.body).reverse();
    };

    it('retries a conflict: still refused it stays open with the current reason; sent it is resolved and its key answers with the message', async () => {

        const family = await blockedConflicts();
        const [conflict] = family.conflicts;
        const { tokens, users, actors } = family;

        const refused = ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/retry`, undefined, { 'if-match': '"1"' }));
        expect(refused).to.equal({ data: { outcome: 'conflict', conflict } });          // the same cause: unchanged

        await unblockUser(context(), actors[1], users[0].id);
        await blockUser(context(), actors[0], users[1].id);
        const otherCause = ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/retry`)).data;
        expect(otherCause.conflict).to.include({ status: 'open', reason: 'blocked', message: 'You have blocked this person: unblock them to write to them.', revision: 2 });

        await unblockUser(context(), actors[0], users[1].id);
        const response = await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/retry`, undefined, { 'if-match': '"2"' });
        const sent = ok(response).data;
        expect(response.headers.etag).to.equal('"3"');
        expect(sent.outcome).to.equal('sent');
        expect(sent.message).to.include({ body: 'Written offline', sender_id: users[0].id, client_time: family.items[0].client_time });
        expect(sent.conflict).to.include({ status: 'resolved', resolution: 'retried', actions: [], revision: 3, item: family.items[0] });
        expect(sent.conflict.resolved_at).to.be.a.string();
        expect(await bodies(family)).to.equal(['Written offline']);

        const reflushed = ok(await messagingRequest(server, tokens[0], 'POST', '/outbox', { items: family.items })).data as Json[];
        expect(reflushed).to.equal([{ outcome: 'duplicate', idempotency_key: family.items[0].idempotency_key, message: sent.message }]);
        expect(ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/retry`), 409)).to.include({ code: 'conflict' });
        expect(await bodies(family)).to.equal(['Written offline']);
    });

    it('sends a conflict retried twice at once once: the other retry is 409', async () => {

        const family = await blockedConflicts();
        const [conflict] = family.conflicts;
        await unblockUser(context(), family.actors[1], family.users[0].id);
        const retry = () => messagingRequest(server, family.tokens[0], 'POST', `/conflicts/${conflict.id}/retry`);
        const answers = await Promise.all([retry(), retry()]);
        expect(answers.map((answer) => answer.statusCode).sort()).to.equal([200, 409]);
        expect(await bodies(family)).to.equal(['Written offline']);
    });

    it('takes an Idempotency-Key on a resolution: the same key replays the first answer, another body under it is 422', async () => {

        const family = await blockedConflicts();
        const [conflict] = family.conflicts;
        await unblockUser(context(), family.actors[1], family.users[0].id);
        const edit = (body: string) => messagingRequest(server, family.tokens[0], 'POST', `/conflicts/${conflict.id}/edit`, { body }, { 'idempotency-key': 'edit-1' });
        const first = await edit('Sent once');
        const again = await edit('Sent once');
        expect(ok(again)).to.equal(ok(first));
        expect(again.headers.etag).to.equal('"2"');
        expect(ok(await edit('Another text'), 422)).to.include({ code: 'idempotency_key_reused' });
        expect(await bodies(family)).to.equal(['Sent once']);
        expect(ok(await messagingRequest(server, family.tokens[0], 'POST', `/conflicts/${conflict.id}/discard`, undefined, { 'idempotency-key': 'edit-1' }), 409)).to.include({ code: 'conflict' });
    });

    it('edits a conflict\'s text and retries it: still refused the item keeps the new text, sent the message has it', async () => {

        const family = await blockedConflicts();
        const [conflict] = family.conflicts;
        const { tokens, users, actors } = family;
        const edit = (body: unknown, headers?: Record<string, string>) => messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/edit`, { body }, headers);

        const stillBlocked = ok(await edit('Edited once')).data;
        expect(stillBlocked.outcome).to.equal('conflict');
        expect(stillBlocked.conflict).to.include({ status: 'open', reason: 'blocked', revision: 2, item: { ...family.items[0], body: 'Edited once' } });

        expect(ok(await edit('x'.repeat(4001)), 400)).to.include({ code: 'invalid_request' });
        expect(ok(await edit(undefined), 400)).to.include({ code: 'invalid_request' });

        await unblockUser(context(), actors[1], users[0].id);
        const sent = ok(await edit('Edited twice ✍️', { 'if-match': '"2"' })).data;
        expect(sent.message).to.include({ body: 'Edited twice ✍️' });
        expect(sent.conflict).to.include({ status: 'resolved', resolution: 'edited', item: { ...family.items[0], body: 'Edited twice ✍️' } });
        expect(await bodies(family)).to.equal(['Edited twice ✍️']);

        // The original item flushed again is the message it became, not another one.
        const [again] = ok(await messagingRequest(server, tokens[0], 'POST', '/outbox', { items: family.items })).data as Json[];
        expect(again).to.include({ outcome: 'duplicate' });
        expect(again.message.id).to.equal(sent.message.id);
    });

    it('discards a conflict: resolved, nothing sent, listed among the resolved ones; the same item flushed again stays discarded', async () => {

        const family = await blockedConflicts(['one', 'two', 'three']);
        const { tokens } = family;
        const discarded = ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${family.conflicts[1].id}/discard`, undefined, { 'if-match': '"1"' })).data;
        expect(discarded).to.include({ id: family.conflicts[1].id, status: 'resolved', resolution: 'discarded', actions: [] });

        const list = async (query = '') => (ok(await messagingRequest(server, tokens[0], 'GET', `/conflicts${query}`)).data as Json[]).map((conflict) => conflict.id);
        const [one, two, three] = family.conflicts.map((conflict) => conflict.id);
        expect(await list()).to.equal([one, three]);
        expect(await list('?status=open')).to.equal([one, three]);
        expect(await list('?status=resolved')).to.equal([two]);
        expect(await list('?status=all')).to.equal([one, two, three]);

        const [again] = ok(await messagingRequest(server, tokens[0], 'POST', '/outbox', { items: [family.items[1]] })).data as Json[];
        expect(again.conflict).to.include({ id: two, status: 'resolved', resolution: 'discarded' });
        expect(ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${two}/discard`), 409)).to.include({ code: 'conflict' });
        expect(await bodies(family)).to.equal([]);
    });

    it('pages the list with opaque cursors and refuses a bad status, cursor or limit', async () => {

        const family = await blockedConflicts(['1', '2', '3', '4', '5']);
        const { tokens } = family;
        const first = ok(await messagingRequest(server, tokens[0], 'GET', '/conflicts?limit=2'));
        const second = ok(await messagingRequest(server, tokens[0], 'GET', `/conflicts?limit=2&cursor=${first.next_cursor}`));
        const last = ok(await messagingRequest(server, tokens[0], 'GET', `/conflicts?limit=2&cursor=${second.next_cursor}`));
        expect([...first.data, ...second.data, ...last.data].map((conflict: Json) => conflict.item.body)).to.equal(['1', '2', '3', '4', '5']);
        expect(last.next_cursor).to.be.null();

        for (const query of ['status=closed', 'cursor=nonsense', 'limit=0', 'limit=x']) {
            expect(ok(await messagingRequest(server, tokens[0], 'GET', `/conflicts?${query}`), 400), query).to.include({ code: 'invalid_request' });
        }
    });

    it('takes If-Match of the conflict\'s revision: a stale one is 412 with the conflict as it is, a malformed one 400', async () => {

        const family = await blockedConflicts();
        const [conflict] = family.conflicts;
        const { tokens } = family;
        for (const action of ['retry', 'discard']) {
            const stale = ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/${action}`, undefined, { 'if-match': '"7"' }), 412);
            expect(stale).to.include({ code: 'precondition_failed', current: conflict });
        }

        const staleEdit = ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/edit`, { body: 'x' }, { 'if-match': 'W/"1"' }), 412);
        expect(staleEdit.current).to.equal(conflict);
        expect(ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/retry`, undefined, { 'if-match': '1' }), 400)).to.include({ code: 'invalid_request' });
        expect(ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/discard`, undefined, { 'if-match': '"0", "1"' })).data).to.include({ resolution: 'discarded' });
    });

    it('answers another user\'s conflict, of the family or another, with 404 on every route', async () => {

        const family = await blockedConflicts();
        const [conflict] = family.conflicts;
        const stranger = await connectedFamily(server, 1);
        for (const token of [family.tokens[1], stranger.tokens[0]]) {
            expect(ok(await messagingRequest(server, token, 'GET', '/conflicts')).data).to.equal([]);
            expect(ok(await messagingRequest(server, token, 'GET', '/conflicts?status=all')).data).to.equal([]);
            for (const [method, path, payload] of [['GET', ''], ['POST', '/retry'], ['POST', '/edit', { body: 'x' }], ['POST', '/discard']] as const) {
                const response = await messagingRequest(server, token, method, `/conflicts/${conflict.id}${path}`, payload);
                expect(ok(response, 404), `${method} ${path}`).to.include({ code: 'not_found', message: `No conflict ${conflict.id}.` });
            }
        }

        expect(ok(await messagingRequest(server, family.tokens[0], 'GET', `/conflicts/${conflict.id}`)).data).to.equal(conflict);
    });

    it('records each new and changed conflict in the change log: sync carries it to its user only', async () => {

        const family = await blockedConflicts();
        const [conflict] = family.conflicts;
        const { actors, tokens } = family;
        const before = await syncChanges(context(), actors[0]) as { changes: SyncEntry[]; next_cursor: string };
        const conflictChanges = before.changes.filter((change) => change.kind === 'conflict');
        expect(conflictChanges.map((change) => [change.action, change.record_id, change.conversation_id, change.record])).to.equal([['created', conflict.id, null, conflict]]);
        const cursor = before.next_cursor;

        ok(await messagingRequest(server, tokens[0], 'POST', `/conflicts/${conflict.id}/discard`));
        const after = await syncChanges(context(), actors[0], cursor) as { changes: SyncEntry[] };
        expect(after.changes.map((change) => [change.kind, change.action, change.revision])).to.equal([['conflict', 'updated', 2]]);
        expect(after.changes[0].record).to.include({ id: conflict.id, status: 'resolved', resolution: 'discarded' });
        expect((await syncChanges(context(), actors[1], cursor) as { changes: SyncEntry[] }).changes).to.equal([]);

    });

    it('keeps the client\'s item as it sent it, files included', async () => {

        const family = await connectedFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), family.actors[0], family.users[1].id);
        const item: OutboxItem = outboxItem(conversation.id, '', { upload_ids: [uploads.add(family.actors[0], { media_type: 'video/x-msvideo' }), uploads.add(family.actors[0])] });
        const [outcome] = ok(await messagingRequest(server, family.tokens[0], 'POST', '/outbox', { items: [item] })).data as Json[];
        expect(outcome.conflict).to.include({ reason: 'attachment_policy', item });
        expect(ok(await messagingRequest(server, family.tokens[0], 'GET', `/conflicts/${outcome.conflict.id}`)).data.item).to.equal(item);
    });
});

