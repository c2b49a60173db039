import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { restoreFamilyMessaging, suspendFamily, suspendFamilyMessaging, unsuspendFamily } from '../../../lib/accounts/families';
import { setUserDisabled } from '../../../lib/accounts/users';
import { recordId } from '../../../lib/ids';
import { blockUser } from '../../../lib/messaging/blocks';
import type { OutboxItem } from '../../../lib/messaging/conflicts';
import { createGroup, removeGroupMember, startDirectConversation } from '../../../lib/messaging/conversations';
import { messageHistory, sendMessage } from '../../../lib/messaging/messages';
import { TestMessageUploads } from '../../helpers/message-uploads';
import { connectedFamily, deviceToken, messagingRequest, outboxItem } from '../../helpers/messaging-api';
import { testServer, testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

interface Outcome {
    outcome: 'sent' | 'duplicate' | 'conflict';
    idempotency_key: string;
    message?: Record<string, any>;
    conflict?: Record<string, any>;
}

describe(`POST /messaging/v1/outbox (${testVariant})`, () => {

    let server: Server;
    const uploads = new TestMessageUploads();
    const logged: string[] = [];

    before(async () => {

        server = await testServer({ log: (_tags, message) => logged.push(message) });
        server.app.services.messaging.uploads = uploads;
    });

    after(() => server.stop());

    const context = () => server.app.services.messaging;
    const flush = (token: string, items: unknown) => messagingRequest(server, token, 'POST', '/outbox', { items });
    const outcomesOf = (response: { statusCode: number; payload: string; result: unknown }): Outcome[] => {

        expect(response.statusCode, response.payload).to.equal(200);
        return (response.result as { data: Outcome[] }).data;
    };

    const bodies = async (actor: Parameters<typeof messageHistory>[1], conversationId: string) => {

        const { messages } = await messageHistory(context(), actor, conversationId, {});
        return messages.map((message) => message.body).reverse();
    };

    it('sends the items in the client\'s order and answers each one\'s outcome: sent, then duplicate for the same flush again', async () => {

        const { users, actors, tokens } = await connectedFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const photo = uploads.add(actors[0]);
        const items = [outboxItem(conversation.id, 'first'), outboxItem(conversation.id, '', { upload_ids: [photo] }), outboxItem(conversation.id, 'third 👋')];

        const first = outcomesOf(await flush(tokens[0], items));
        expect(first.map((each) => [each.outcome, each.idempotency_key])).to.equal(items.map((item) => ['sent', item.idempotency_key]));
        expect(first[0].message).to.include({ conversation_id: conversation.id, sender_id: users[0].id, body: 'first', revision: 1, client_time: items[0].client_time });
        expect(first[1].message).to.include({ body: null, attachments: [{ upload_id: photo, file_name: `${photo}.png`, media_type: 'image/png', size_bytes: 1000 }] });
        expect(uploads.isClaimed(photo)).to.be.true();

        const again = outcomesOf(await flush(tokens[0], items));
        expect(again.map((each) => each.outcome)).to.equal(['duplicate', 'duplicate', 'duplicate']);
        expect(again.map((each) => each.message!.id)).to.equal(first.map((each) => each.message!.id));
        expect(await bodies(actors[1], conversation.id)).to.equal(['first', null, 'third 👋']);
        expect(outcomesOf(await flush(tokens[0], []))).to.equal([]);

        // With a key of the flush's own, the same flush again replays its first answer whole.
        const keyed = [outboxItem(conversation.id, 'keyed')];
        const once = await messagingRequest(server, tokens[0], 'POST', '/outbox', { items: keyed }, { 'idempotency-key': 'flush-1' });
        const twice = await messagingRequest(server, tokens[0], 'POST', '/outbox', { items: keyed }, { 'idempotency-key': 'flush-1' });
        expect(twice.headers['idempotent-replayed']).to.equal('true');
        expect(outcomesOf(twice)).to.equal(outcomesOf(once));
        expect(outcomesOf(once)[0].outcome).to.equal('sent');
    });

    it('makes every item a recheck refuses a conflict, visible through the API with its reason, the item intact and its place', async () => {

        const { familyLongId, users, actors, tokens } = await connectedFamily(server, 3);
        const { conversation: direct } = await startDirectConversation(context(), actors[0], users[1].id);
        const { conversation: blockedDirect } = await startDirectConversation(context(), actors[0], users[2].id);
        const group = await createGroup(context(), actors[1], 'Cousins', [users[0].id, users[2].id]);
        const before = await sendMessage(context(), actors[1], direct.id, { body: 'Are you there?' });
        await blockUser(context(), actors[2], users[0].id);
        await removeGroupMember(context(), actors[1], group.id, users[0].id);
        uploads.quotaBytes.set(familyLongId, 5000);

        const items: OutboxItem[] = [
            outboxItem(group.id, 'to a group I was taken out of'),
            outboxItem(blockedDirect.id, 'to someone who blocked me'),
            outboxItem(direct.id, 'too big', { upload_ids: [uploads.add(actors[0], { size_bytes: 6000 })] }),
            outboxItem(direct.id, 'not allowed', { upload_ids: [uploads.add(actors[0], { media_type: 'application/x-msdownload' })] }),
            outboxItem(direct.id, 'still sent')
        ];
        const outcomes = outcomesOf(await flush(tokens[0], items));
        expect(outcomes.map((each) => [each.outcome, each.conflict?.reason])).to.equal([
            ['conflict', 'conversation_access'], ['conflict', 'blocked'], ['conflict', 'storage_quota'], ['conflict', 'attachment_policy'], ['sent', undefined]
        ]);

        const listed = await messagingRequest(server, tokens[0], 'GET', '/conflicts');
        expect(listed.statusCode).to.equal(200);
        const conflicts = (listed.result as { data: Record<string, any>[] }).data;
        expect(conflicts.map((conflict) => conflict.id)).to.equal(outcomes.slice(0, 4).map((each) => each.conflict!.id));
        for (const [index, conflict] of conflicts.entries()) {
            const one = await messagingRequest(server, tokens[0], 'GET', `/conflicts/${conflict.id}`);
            expect(one.statusCode).to.equal(200);
            expect(one.headers.etag).to.equal('"1"');
            expect(one.result).to.equal({ data: conflict });
            expect(conflict).to.include({ item: items[index], conversation_id: items[index].conversation_id, status: 'open', resolution: null, actions: ['retry', 'edit', 'discard'], revision: 1 });
            expect(conflict.message).to.be.a.string();
        }

        expect(conflicts.map((conflict) => conflict.after_message_id)).to.equal([null, null, before.id, before.id]);
        expect(await bodies(actors[1], direct.id)).to.equal(['Are you there?', 'still sent']);
        uploads.quotaBytes.delete(familyLongId);
    });

    it('takes a disabled user\'s flush, or a suspended family\'s (its access or its messaging), as account_disabled conflicts; every other route refuses them', async () => {

        const accounts = server.app.services.accounts;
        const { familyLongId, users, actors, tokens } = await connectedFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);

        await setUserDisabled(accounts, users[0].id, true);
        const whileDisabled = [outboxItem(conversation.id, 'written while disabled'), outboxItem(conversation.id, 'and another')];
        const disabled = outcomesOf(await flush(tokens[0], whileDisabled));
        expect(disabled.map((each) => [each.outcome, each.conflict!.reason, each.conflict!.item])).to.equal(whileDisabled.map((item) => ['conflict', 'account_disabled', item]));
        expect((await messagingRequest(server, tokens[0], 'GET', '/conflicts')).result).to.include({ code: 'account_disabled' });
        expect((await messagingRequest(server, tokens[0], 'POST', `/conflicts/${disabled[0].conflict!.id}/retry`)).result).to.include({ code: 'account_disabled' });
        expect((await messagingRequest(server, tokens[0], 'GET', '/me')).result).to.include({ code: 'account_disabled' });
        await setUserDisabled(accounts, users[0].id, false);

        await suspendFamily(accounts, familyLongId, 'Unusual traffic', 'test');
        const suspended = outcomesOf(await flush(tokens[1], [outboxItem(conversation.id, 'written while suspended')]));
        expect(suspended[0].conflict).to.include({ reason: 'account_disabled' });
        expect((await messagingRequest(server, tokens[1], 'GET', '/conflicts')).result).to.include({ code: 'family_suspended' });
        await unsuspendFamily(accounts, familyLongId);

        await suspendFamilyMessaging(accounts, familyLongId, 'Spam reports', 'test');
        const messagingSuspended = outcomesOf(await flush(tokens[1], [outboxItem(conversation.id, 'written while messaging is suspended')]));
        expect(messagingSuspended[0].conflict).to.include({ reason: 'account_disabled' });
        expect((await messagingRequest(server, tokens[1], 'GET', '/conflicts')).result).to.include({ code: 'messaging_suspended' });
        await restoreFamilyMessaging(accounts, familyLongId);
        expect(((await messagingRequest(server, tokens[1], 'GET', '/conflicts')).result as { data: unknown[] }).data).to.have.length(2);

        const admitted = server.table().filter((route) => route.settings.plugins?.gateway?.accountStateInHandler).map((route) => `${route.method} ${route.path}`);
        expect(admitted).to.equal(['post /messaging/v1/outbox']);

        const listed = (await messagingRequest(server, tokens[0], 'GET', '/conflicts')).result as { data: { id: string }[] };
        expect(listed.data.map((conflict) => conflict.id)).to.equal(disabled.map((each) => each.conflict!.id));
        expect(await bodies(actors[0], conversation.id)).to.equal([]);
    });

    it('replays a flush sent again after a partial failure: items in order, none twice, the conflict the same', async () => {

        const { users, actors, tokens } = await connectedFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const items = [
            outboxItem(conversation.id, 'a'),
            outboxItem(conversation.id, 'b', { upload_ids: [uploads.add(actors[0], { media_type: 'text/html' })] }),
            outboxItem(conversation.id, 'c', { upload_ids: [uploads.add(actors[0])] })
        ];

        uploads.failNext = true;
        const failed = await flush(tokens[0], items);
        expect(failed.statusCode).to.equal(500);
        expect(logged.filter((line) => line.includes('Error: the upload store did not answer'))).to.have.length(1);

        const retried = outcomesOf(await flush(tokens[0], [...items, outboxItem(conversation.id, 'd')]));
        expect(retried.map((each) => each.outcome)).to.equal(['duplicate', 'conflict', 'sent', 'sent']);
        const again = outcomesOf(await flush(tokens[0], items));
        expect(again.map((each) => each.outcome)).to.equal(['duplicate', 'conflict', 'duplicate']);
        expect(again[1].conflict!.id).to.equal(retried[1].conflict!.id);
        expect(await bodies(actors[1], conversation.id)).to.equal(['a', 'c', 'd']);
        expect(((await messagingRequest(server, tokens[0], 'GET', '/conflicts')).result as { data: unknown[] }).data).to.have.length(1);
    });

    it('sends each item once when the same flush comes twice at once: the one that meets an item being sent is 409, and replays later', async () => {

        const { users, actors, tokens } = await connectedFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const items = Array.from({ length: 6 }, (_, index) => outboxItem(conversation.id, `m${index}`));
        const answers = await Promise.all([flush(tokens[0], items), flush(tokens[0], items)]);
        for (const answer of answers) {
            expect(answer.statusCode === 200 || (answer.result as { code?: string }).code === 'conflict', answer.payload).to.be.true();
        }

        const last = outcomesOf(await flush(tokens[0], items));
        expect(last.map((each) => each.outcome)).to.equal(Array(6).fill('duplicate'));
        expect(await bodies(actors[1], conversation.id)).to.equal(items.map((item) => item.body));
    });

    it('refuses a flush that cannot be applied whole with a 4xx, before applying any item', async () => {

        const { users, actors, tokens } = await connectedFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const good = outboxItem(conversation.id, 'never sent');
        const refused = async (payload: unknown, status: number, code: string, message?: string) => {

            const response = typeof payload === 'string' ?
                await server.inject({ method: 'POST', url: '/messaging/v1/outbox', headers: { authorization: `Bearer ${tokens[0]}`, 'content-type': 'application/json' }, payload }) :
                await flush(tokens[0], payload);
            expect(response.statusCode, response.payload).to.equal(status);
            expect(response.result).to.include({ code });
            if (message) {
                expect((response.result as { message: string }).message).to.include(message);
            }
        };

        await refused('{"items": [', 400, 'invalid_request', 'not valid JSON');
        await refused(undefined, 400, 'invalid_request');
        await refused([good, { ...outboxItem(conversation.id, 'x'), client_time: '2026-12-06 18:30' }], 400, 'invalid_request', 'client_time');
        await refused([good, { ...outboxItem(conversation.id, 'x'), client_time: undefined }], 400, 'invalid_request', 'client_time');
        await refused([good, outboxItem('not-a-conversation', 'x')], 400, 'invalid_request', 'conversation_id');
        await refused([good, { ...outboxItem(conversation.id, 'x'), idempotency_key: '' }], 400, 'invalid_request', 'idempotency_key');
        await refused([good, { ...outboxItem(conversation.id, 'x'), sender_id: users[1].id }], 400, 'invalid_request', 'sender_id');
        await refused([good, outboxItem(conversation.id, 'half a pair \ud83d')], 400, 'invalid_request', 'surrogate');
        await refused([good, outboxItem(conversation.id, 'x'.repeat(4001))], 400, 'invalid_request', 'items[1].body: a message is at most 4000 characters');
        await refused([good, good], 400, 'invalid_request', 'items[1].idempotency_key');
        await refused(Array.from({ length: 101 }, (_, index) => outboxItem(conversation.id, `m${index}`)), 400, 'invalid_request', 'at most 100 items');

        const sent = outboxItem(conversation.id, 'sent');
        outcomesOf(await flush(tokens[0], [sent]));
        await refused([good, { ...sent, body: 'another text under the same key' }], 422, 'idempotency_key_reused', 'items[1].idempotency_key');
        expect(await bodies(actors[0], conversation.id)).to.equal(['sent']);
    });

    it('needs the messages:write scope, and answers another family\'s conversation as conversation_access, never its content', async () => {

        const { users, actors, tokens } = await connectedFamily(server, 2);
        const reader = await deviceToken(server, users[0], 'messages:read');
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        expect((await flush(reader, [outboxItem(conversation.id, 'x')])).result).to.include({ code: 'token_scope' });

        const stranger = await connectedFamily(server, 1);
        const [outcome] = outcomesOf(await flush(stranger.tokens[0], [outboxItem(conversation.id, 'let me in'), outboxItem(recordId('cnv'), 'nowhere')]));
        expect(outcome.conflict).to.include({ reason: 'conversation_access', after_message_id: null });
        expect(await bodies(actors[0], conversation.id)).to.equal([]);
        expect(tokens).to.have.length(2);
    });
});
