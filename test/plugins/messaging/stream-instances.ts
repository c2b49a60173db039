import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { startDirectConversation } from '../../../lib/messaging/conversations';
import { sendMessage } from '../../../lib/messaging/messages';
import { messagingFamily } from '../../helpers/messaging';
import { testRedisUrl } from '../../helpers/server';
import { listeningServer } from '../stream/client';
import { changesOf, deviceToken, openedRecovery, receivedChanges, recoverySuiteTitle } from './stream-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(recoverySuiteTitle('several instances'), () => {

    let first: Server;

    before(async () => {

        first = await listeningServer();
    });

    after(() => first.stop());

    // Without Redis each instance's bus is its own: changes cross instances through Redis only.
    it('carries a message sent through one instance on a stream of another', { skip: !testRedisUrl }, async () => {

        const second = await listeningServer({ shareWith: first });
        try {
            const { actors, users } = await messagingFamily(first, 2);
            const stream = await openedRecovery(second, await deviceToken(first, users[1]));
            const { conversation } = await startDirectConversation(first.app.services.messaging, actors[0], users[1].id);
            const sent = await sendMessage(first.app.services.messaging, actors[0], conversation.id, { body: 'across' });

            const received = await receivedChanges(stream, 4);
            expect(received.map((event) => event.event)).to.equal(['conversation.created', 'member.created', 'member.created', 'message.created']);
            expect(received[3].data.record_id).to.equal(sent.id);
            stream.close();
        }
        finally {
            await second.stop();
        }
    });

    it('resumes on a new instance, after the one that held the stream stopped, missing nothing', async () => {

        const holding = await listeningServer({ shareWith: first });
        const { actors, users } = await messagingFamily(first, 2);
        const token = await deviceToken(first, users[1]);
        const { conversation } = await startDirectConversation(first.app.services.messaging, actors[0], users[1].id);
        const send = async (through: Server, body: string) => (await sendMessage(through.app.services.messaging, actors[0], conversation.id, { body })).id;

        const stream = await openedRecovery(holding, token);
        const early = await send(holding, 'one');
        const [received] = await receivedChanges(stream, 1);
        expect(received.data.record_id).to.equal(early);
        await holding.stop({ timeout: 5000 });
        await stream.end();
        expect(stream.events.at(-1)!.event).to.equal('close');

        const missed = [await send(first, 'two'), await send(first, 'three')];
        const restarted = await listeningServer({ shareWith: first });
        try {
            const resumed = await openedRecovery(restarted, token, { headers: { 'last-event-id': received.id! } });
            await receivedChanges(resumed, 2);
            const live = await send(restarted, 'four');
            await receivedChanges(resumed, 3);
            expect(changesOf(resumed).map((event) => event.data.record_id)).to.equal([...missed, live]);
            resumed.close();
        }
        finally {
            await restarted.stop();
        }
    });
});
