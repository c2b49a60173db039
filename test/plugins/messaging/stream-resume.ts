import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { recordId } from '../../../lib/ids';
import { blockUser, unblockUser } from '../../../lib/messaging/blocks';
import type { MessagingBatch } from '../../../lib/messaging/changes';
import { startDirectConversation } from '../../../lib/messaging/conversations';
import { encodeCursor } from '../../../lib/messaging/cursors';
import { sendMessage } from '../../../lib/messaging/messages';
import { flushOutbox } from '../../../lib/messaging/outbox';
import type { MessagingActor } from '../../../lib/messaging/context';
import { messagingFamily } from '../../helpers/messaging';
import { listeningServer } from '../stream/client';
import { changesOf, deviceToken, openedRecovery, receivedChanges, recoverySuiteTitle } from './stream-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const DAY_MS = 24 * 60 * 60 * 1000;

describe(recoverySuiteTitle('resuming'), () => {

    let server: Server;

    before(async () => {

        server = await listeningServer();
    });

    after(() => server.stop());

    const context = () => server.app.services.messaging;

    /** A family of two with their direct conversation, the second's device token, and a way to send numbered messages. */
    async function conversationOfTwo(): Promise<{ token: string; send(count: number): Promise<string[]>; actors: MessagingActor[] }> {

        const { actors, users } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        let sent = 0;
        return {
            token: await deviceToken(server, users[1]),
            actors,
            async send(count) {

                const ids: string[] = [];
                for (let index = 0; index < count; ++index) {
                    ids.push((await sendMessage(context(), actors[0], conversation.id, { body: `message ${++sent}` })).id);
                }

                return ids;
            }
        };
    }

    const recordIds = (events: Array<{ data: any }>) => events.map((event) => event.data.record_id);

    for (const [how, resumeFrom] of [
        ['the Last-Event-ID header', (cursor: string) => ({ headers: { 'last-event-id': cursor } })],
        ['the cursor parameter', (cursor: string) => ({ query: `cursor=${cursor}` })]
    ] as const) {
        it(`resumes after ${how}: what was missed in order, then live, none twice`, async () => {

            const { token, send } = await conversationOfTwo();
            const first = await openedRecovery(server, token);
            const before = await send(2);
            const received = await receivedChanges(first, 2);
            first.close();

            const missed = await send(3);
            const resumed = await openedRecovery(server, token, resumeFrom(received[0].id!));
            expect(resumed.events[0]).to.include({ event: 'ready', id: received[0].id });
            await receivedChanges(resumed, 4);
            const live = await send(1);
            await receivedChanges(resumed, 5);

            expect(recordIds(changesOf(resumed))).to.equal([before[1], ...missed, ...live]);
            const cursors = changesOf(resumed).map((event) => event.id);
            expect(new Set(cursors).size).to.equal(5);
            resumed.close();
        });
    }

    it('reads the log when a batch of the bus never arrived, so nothing is missed', async () => {

        const { token, send } = await conversationOfTwo();
        const stream = await openedRecovery(server, token);
        const bus = context().bus;
        const publish = bus.publish.bind(bus);
        bus.publish = (_batch: MessagingBatch) => {

            bus.publish = publish;                  // this batch is lost on the way
        };

        const sent = await send(3);
        await receivedChanges(stream, 3);
        expect(recordIds(changesOf(stream))).to.equal(sent);
        stream.close();
    });

    it('rechecks open conflicts when a client reconnects, and sends what changed first', async () => {

        const { actors, users } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        await blockUser(context(), actors[1], users[0].id);
        const token = await deviceToken(server, users[0]);
        const first = await openedRecovery(server, token);
        const item = { idempotency_key: recordId('key'), conversation_id: conversation.id, client_time: new Date().toISOString(), body: 'Written offline' };
        await flushOutbox(context(), actors[0], { grantId: recordId('dev'), prefix: '/messaging/v1' }, [item]);
        const [created] = await receivedChanges(first, 1);
        expect(created.event).to.equal('conflict.created');
        first.close();

        await unblockUser(context(), actors[1], users[0].id);
        const resumed = await openedRecovery(server, token, { headers: { 'last-event-id': created.id! } });
        const [updated] = await receivedChanges(resumed, 1);
        expect(updated.event).to.equal('conflict.updated');
        expect(updated.data.record).to.include({ id: created.data.record_id, message: 'Nothing stops this message now: retry to send it, or discard it.' });
        resumed.close();
    });

    it('sends `reset` for a cursor past the retention window, whose id the client carries on from', async () => {

        const { token, send } = await conversationOfTwo();
        const old = encodeCursor({ time: new Date(Date.now() - 31 * DAY_MS), tiebreak: '1' });
        const stream = await openedRecovery(server, token, { headers: { 'last-event-id': old } });
        const [reset] = stream.events;
        expect(reset.event).to.equal('reset');
        expect(reset.data).to.include({ reset: true, reason: 'expired', cursor: reset.id });
        expect(String(reset.data.message).startsWith('This cursor is older than the 30-day retention window')).to.be.true();

        const sent = await send(1);
        expect(recordIds(await receivedChanges(stream, 1))).to.equal(sent);
        stream.close();

        const resumed = await openedRecovery(server, token, { headers: { 'last-event-id': reset.id! } });
        expect(resumed.events[0].event).to.equal('ready');
        expect(recordIds(await receivedChanges(resumed, 1))).to.equal(sent);
        resumed.close();
    });

    it('sends `reset` for a cursor of a change this service never had', async () => {

        const { token } = await conversationOfTwo();
        const stream = await openedRecovery(server, token, { query: `cursor=${encodeCursor({ time: new Date(), tiebreak: '999999999999' })}` });
        expect(stream.events[0].event).to.equal('reset');
        expect(stream.events[0].data.reason).to.equal('unknown');
        stream.close();
    });
});
