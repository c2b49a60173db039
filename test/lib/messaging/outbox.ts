import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import type { Transaction } from 'sequelize';

import { recordId } from '../../../lib/ids';
import { requestFingerprint } from '../../../lib/idempotency-key-header';
import { blockUser } from '../../../lib/messaging/blocks';
import { itemKeyRoute, sentAnswer, type OutboxItem } from '../../../lib/messaging/conflicts';
import type { MessagingActor } from '../../../lib/messaging/context';
import { createGroup, startDirectConversation } from '../../../lib/messaging/conversations';
import { answerOnce } from '../../../lib/messaging/idempotency';
import { messageHistory, sendMessage } from '../../../lib/messaging/messages';
import { flushOutbox, type ItemOutcome } from '../../../lib/messaging/outbox';
import type { Message } from '../../../models/message';
import { TestMessageUploads } from '../../helpers/message-uploads';
import { messagingFamily } from '../../helpers/messaging';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('the offline outbox', () => {

    let server: Server;
    const uploads = new TestMessageUploads();

    before(async () => {

        server = await testServer();
        server.app.services.messaging.uploads = uploads;
    });

    after(() => server.stop());

    const context = () => server.app.services.messaging;
    const item = (conversationId: string, body: string, extra: Partial<OutboxItem> = {}): OutboxItem => ({
        idempotency_key: recordId('key'), conversation_id: conversationId, client_time: new Date().toISOString(), body, ...extra
    });
    const device = () => ({ grantId: recordId('dev'), prefix: '/messaging/v1' });
    const kinds = (outcomes: ItemOutcome[]) => outcomes.map((outcome) => outcome.outcome);
    const idOf = (outcome: ItemOutcome) => ('message' in outcome ? outcome.message : outcome.conflict) as { id: string };
    const bodies = async (actor: MessagingActor, conversationId: string) => {

        const { messages } = await messageHistory(context(), actor, conversationId, {});
        return messages.map((message) => message.body).reverse();
    };

    it('applies the items of a conversation in the client\'s order, a conflict in its place not stopping those after it', async () => {

        const { users, actors } = await messagingFamily(server, 3);
        const group = await createGroup(context(), actors[0], 'Cousins', [users[1].id, users[2].id]);
        const { conversation: direct } = await startDirectConversation(context(), actors[0], users[1].id);
        const items = [
            item(group.id, 'one'), item(direct.id, 'direct one'), item(group.id, 'two'),
            item(group.id, 'refused', { upload_ids: [uploads.add(actors[0], { media_type: 'application/zip' })] }),
            item(group.id, 'three', { client_time: '2020-01-01T00:00:00.000Z' }), item(direct.id, 'direct two')
        ];
        for (let index = 0; index < 20; ++index) {
            items.push(item(group.id, `burst ${index}`));
        }

        const outcomes = await flushOutbox(context(), actors[0], device(), items);
        expect(kinds(outcomes)).to.equal(['sent', 'sent', 'sent', 'conflict', ...Array(22).fill('sent')]);
        expect(outcomes.map((outcome) => outcome.idempotency_key)).to.equal(items.map((each) => each.idempotency_key));
        expect(await bodies(actors[1], group.id)).to.equal(['one', 'two', 'three', ...items.slice(6).map((each) => each.body)]);
        expect(await bodies(actors[1], direct.id)).to.equal(['direct one', 'direct two']);

        const conflict = (outcomes[3] as { conflict: Record<string, unknown> }).conflict;
        expect(conflict).to.include({ reason: 'attachment_policy', status: 'open', conversation_id: group.id, after_message_id: idOf(outcomes[2]).id, item: items[3] });
        const three = (outcomes[4] as { message: Record<string, unknown> }).message;
        expect(three).to.include({ body: 'three', client_time: '2020-01-01T00:00:00.000Z' });
    });

    it('sends an item once per key: the same flush again, after a failure part-way, replays what was done and carries on in order', async () => {

        const { users, actors } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const flusher = device();
        const items = [
            item(conversation.id, 'a'),
            item(conversation.id, 'b', { upload_ids: [uploads.add(actors[0], { media_type: 'text/html' })] }),
            item(conversation.id, 'c', { upload_ids: [uploads.add(actors[0])] }),
            item(conversation.id, 'd')
        ];

        uploads.failNext = true;
        await expect(flushOutbox(context(), actors[0], flusher, items)).to.reject('the upload store did not answer');
        expect(await bodies(actors[0], conversation.id)).to.equal(['a']);

        const second = await flushOutbox(context(), actors[0], flusher, items);
        expect(kinds(second)).to.equal(['duplicate', 'conflict', 'sent', 'sent']);
        const third = await flushOutbox(context(), actors[0], flusher, items);
        expect(kinds(third)).to.equal(['duplicate', 'conflict', 'duplicate', 'duplicate']);
        expect(third.map(idOf)).to.equal(second.map(idOf));
        expect(await bodies(actors[0], conversation.id)).to.equal(['a', 'c', 'd']);
        expect(await context().models.MessagingConflict.count({ where: { user_id: users[0].id } })).to.equal(1);

        // Keys are per device: another one's same key is another item.
        expect(kinds(await flushOutbox(context(), actors[0], device(), [items[0]]))).to.equal(['sent']);
    });

    it('shares the send route\'s keys: an item sent online is not sent again from the outbox, and the other way round', async () => {

        const { users, actors } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const flusher = device();
        const path = `/messaging/v1/conversations/${conversation.id}/messages`;
        // As the send route does: the same key scope and fingerprint, the answer stored in the send's transaction.
        const scope = (key: string, body: string) => ({ grantId: flusher.grantId, route: itemKeyRoute, key, fingerprint: requestFingerprint(path, { body }) });
        const sendOnline = (key: string, body: string) => answerOnce(context().models, scope(key, body),
            async (recordAnswer) => {

                const afterSend = (transaction: Transaction, message: Message) => recordAnswer(transaction, sentAnswer(message));
                return sentAnswer(await sendMessage(context(), actors[0], conversation.id, { body, afterSend }));
            });

        const online = item(conversation.id, 'sent online first');
        const { answer } = await sendOnline(online.idempotency_key, 'sent online first');
        const [outcome] = await flushOutbox(context(), actors[0], flusher, [online]);
        expect(outcome).to.include({ outcome: 'duplicate' });
        expect(idOf(outcome).id).to.equal((answer.body as { data: { id: string } }).data.id);

        const offline = item(conversation.id, 'sent from the outbox first');
        const [sent] = await flushOutbox(context(), actors[0], flusher, [offline]);
        const replay = await sendOnline(offline.idempotency_key, 'sent from the outbox first');
        expect(replay.replayed).to.be.true();
        expect((replay.answer.body as { data: { id: string } }).data.id).to.equal(idOf(sent).id);

        await blockUser(context(), actors[1], users[0].id);
        const refused = item(conversation.id, 'refused');
        const [conflict] = await flushOutbox(context(), actors[0], flusher, [refused]);
        const refusedOnline = await sendOnline(refused.idempotency_key, 'refused');
        expect(refusedOnline.answer.status).to.equal(409);
        expect(refusedOnline.answer.body).to.include({ code: 'conflict' });
        expect((refusedOnline.answer.body as { conflict: { id: string } }).conflict.id).to.equal(idOf(conflict).id);
        expect(await bodies(actors[0], conversation.id)).to.equal(['sent online first', 'sent from the outbox first']);
    });

    it('refuses a flush that cannot be applied whole before applying any item', async () => {

        const { users, actors } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const flusher = device();
        const refusal = async (items: OutboxItem[]) => {

            const error = await expect(flushOutbox(context(), actors[0], flusher, items)).to.reject();
            return { code: (error as any).code ?? (error as any).output.payload.code, message: (error as Error).message };
        };

        const used = item(conversation.id, 'first');
        await flushOutbox(context(), actors[0], flusher, [used]);
        const fresh = item(conversation.id, 'not applied');
        const tooMany = Array.from({ length: 101 }, (_, index) => item(conversation.id, `m${index}`));
        expect(await refusal(tooMany)).to.equal({ code: 'invalid_request', message: 'items: a flush holds at most 100 items: send the rest in another, in order.' });
        expect(await refusal([fresh, { ...fresh }])).to.equal({ code: 'invalid_request', message: 'items[1].idempotency_key: items[0] has it already: each item has a key of its own.' });
        expect(await refusal([fresh, item(conversation.id, 'x'.repeat(4001))])).to.equal({ code: 'invalid_request', message: 'items[1].body: a message is at most 4000 characters.' });
        expect(await refusal([fresh, item(conversation.id, '  ')])).to.equal({ code: 'invalid_request', message: 'items[1].body: a message needs text or a file.' });
        expect(await refusal([fresh, { ...used, body: 'another text' }])).to.include({ code: 'idempotency_key_reused' });
        expect(await bodies(actors[0], conversation.id)).to.equal(['first']);
    });
});
