import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { startDirectConversation } from '../../../lib/messaging/conversations';
import { messagingFamily } from '../../helpers/messaging';
import { siteAccount } from '../site/client';
import { HttpBrowser } from '../site/http-browser';
import { listeningServer } from '../stream/client';
import { deviceToken, openedRecovery, receivedChanges, recoverySuiteTitle } from './stream-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(recoverySuiteTitle('the site and the API, two views of the same messages'), () => {

    let server: Server;

    before(async () => {

        server = await listeningServer();
    });

    after(() => server.stop());

    it('delivers a message sent on /messages to the other person\'s recovery stream, and shows on /messages one sent through the API', async () => {

        const { familyLongId, users: [device] } = await messagingFamily(server, 1);
        const { user: manager, email, password } = await siteAccount(server, { role: 'manager', familyLongId });
        const site = await new HttpBrowser(server).signIn(email, password);
        const { conversation } = await startDirectConversation(server.app.services.messaging, { userId: manager.id, familyLongId, isManager: true }, device.id);
        const token = await deviceToken(server, device);
        const stream = await openedRecovery(server, token);

        const sent = await site.post(`/messages/${conversation.id}`, { body: 'Sent from the site 🌐' });
        expect(sent.status).to.equal(302);
        const [arrived] = await receivedChanges(stream, 1);
        expect(arrived.event).to.equal('message.created');
        expect(arrived.data.record).to.include({ conversation_id: conversation.id, sender_id: manager.id, body: 'Sent from the site 🌐' });

        const answer = await fetch(`${server.info.uri}/messaging/v1/conversations/${conversation.id}/messages`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'from-the-desktop' },
            body: JSON.stringify({ body: 'Answered from the desktop <b>app</b>' })
        });
        expect(answer.status).to.equal(201);
        const [, echoed] = await receivedChanges(stream, 2);
        expect(echoed.data.record.body).to.equal('Answered from the desktop <b>app</b>');

        const page = await site.get(`/messages/${conversation.id}`);
        expect(page.text).to.contain('Sent from the site 🌐');
        expect(page.text).to.contain('Answered from the desktop &lt;b&gt;app&lt;/b&gt;');
        stream.close();
    });
});
