import { expect } from '@hapi/code';
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { recordId } from '../../../lib/ids';
import { blockUser, unblockUser } from '../../../lib/messaging/blocks';
import { createGroup, startDirectConversation } from '../../../lib/messaging/conversations';
import { encodeCursor } from '../../../lib/messaging/cursors';
import { sendMessage } from '../../../lib/messaging/messages';
import { flushOutbox } from '../../../lib/messaging/outbox';
import { messagingFamily } from '../../helpers/messaging';
import { editPolicyFile } from '../../helpers/policy-files';
import { copyPolicies, testServer, testVariant } from '../../helpers/server';
import { deviceToken } from './stream-client';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const DAY_MS = 24 * 60 * 60 * 1000;

describe(`GET /messaging/v1/sync (${testVariant})`, () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(() => server.stop());

    const context = () => server.app.services.messaging;
    const sync = (token: string, query = ''): Promise<ServerInjectResponse> => server.inject({ url: `/messaging/v1/sync${query}`, headers: { authorization: `Bearer ${token}` } });

    it('pages the user\'s changes in commit order, with records, until has_more is false', async () => {

        const { actors, users } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        const sent = [];
        for (let index = 0; index < 3; ++index) {
            sent.push((await sendMessage(context(), actors[index % 2], conversation.id, { body: `m${index}` })).id);
        }

        const token = await deviceToken(server, users[1]);
        const entries = [];
        let cursor: string | undefined;
        for (let pages = 0; ; ++pages) {
            const response = await sync(token, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
            expect(response.statusCode).to.equal(200);
            const page = response.result as { data: any[]; next_cursor: string; has_more: boolean };
            entries.push(...page.data);
            cursor = page.next_cursor;
            if (!page.has_more) {
                expect(pages).to.equal(2);
                break;
            }
        }

        expect(entries.map((entry) => `${entry.kind}.${entry.action}`)).to.equal(['conversation.created', 'member.created', 'member.created', 'message.created', 'message.created', 'message.created']);
        expect(entries.slice(3).map((entry) => entry.record.id)).to.equal(sent);
        expect(entries[0].record).to.include({ id: conversation.id, kind: 'direct' });
        expect(entries.at(-1).cursor).to.equal(cursor);

        // Caught up: an empty page keeping the cursor.
        expect(await sync(token, `?cursor=${cursor}`).then((response) => response.result)).to.equal({ data: [], next_cursor: cursor, has_more: false });
    });

    it('answers a cursor past the retention window, or of no change it has, with a reset', async () => {

        const { users } = await messagingFamily(server, 1);
        const token = await deviceToken(server, users[0]);
        const expired = await sync(token, `?cursor=${encodeCursor({ time: new Date(Date.now() - 40 * DAY_MS), tiebreak: '1' })}`);
        expect(expired.statusCode).to.equal(200);
        expect(expired.result).to.include({ reset: true, reason: 'expired' });
        const again = await sync(token, `?cursor=${(expired.result as { cursor: string }).cursor}`);
        expect(again.result).to.include({ data: [], has_more: false });

        expect((await sync(token, `?cursor=${encodeCursor({ time: new Date(), tiebreak: '999999999999' })}`)).result).to.include({ reset: true, reason: 'unknown' });
    });

    it('holds nothing of another family, nor of conversations the user is not in', async () => {

        const family = await messagingFamily(server, 3);
        const other = await messagingFamily(server, 1);
        const { conversation } = await startDirectConversation(context(), family.actors[0], family.users[1].id);
        await sendMessage(context(), family.actors[0], conversation.id, { body: 'private' });
        await sendMessage(context(), other.actors[0], (await createGroup(context(), other.actors[0], 'Theirs', [])).id, { body: 'theirs' });

        for (const user of [family.users[2], other.users[0]]) {
            const { data } = (await sync(await deviceToken(server, user))).result as { data: any[] };
            expect(data.filter((entry) => entry.conversation_id === conversation.id)).to.equal([]);
        }

        const { data } = (await sync(await deviceToken(server, family.users[2]))).result as { data: any[] };
        expect(data).to.equal([]);
    });

    it('rechecks open conflicts when a client carries on after a cursor: one whose cause is gone says so in the page', async () => {

        const { actors, users } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        await blockUser(context(), actors[1], users[0].id);
        const item = { idempotency_key: recordId('key'), conversation_id: conversation.id, client_time: new Date().toISOString(), body: 'Written offline' };
        const [outcome] = await flushOutbox(context(), actors[0], { grantId: recordId('dev'), prefix: '/messaging/v1' }, [item]);
        const conflictId = (outcome as { conflict: { id: string } }).conflict.id;
        const token = await deviceToken(server, users[0]);
        const { next_cursor: cursor } = (await sync(token)).result as { next_cursor: string };

        await unblockUser(context(), actors[1], users[0].id);
        const { data } = (await sync(token, `?cursor=${cursor}`)).result as { data: any[] };
        expect(data.map((entry) => `${entry.kind}.${entry.action}`)).to.equal(['conflict.updated']);
        expect(data[0].record).to.include({ id: conflictId, reason: 'blocked', message: 'Nothing stops this message now: retry to send it, or discard it.', status: 'open' });
    });

    it('refuses bad queries with 400, a token without messages:read with 403, and no token with 401', async () => {

        const { users } = await messagingFamily(server, 1);
        const token = await deviceToken(server, users[0]);
        for (const query of ['?cursor=not%20one', '?cursor=bm90LWEtY3Vyc29y', '?limit=0', '?limit=many', '?limit=5001', '?since=1']) {
            const response = await sync(token, query);
            expect(response.statusCode, query).to.equal(400);
            expect(response.result, query).to.include({ code: 'invalid_request' });
        }

        const history = encodeCursor({ time: new Date(), tiebreak: 'msg_abc' });
        expect((await sync(token, `?cursor=${history}`)).result).to.include({ code: 'invalid_request' });

        expect((await sync(await deviceToken(server, users[0], 'profile'))).result).to.include({ code: 'token_scope' });
        expect((await server.inject('/messaging/v1/sync')).statusCode).to.equal(401);
    });

    it('deletes the changes past the retention window on the policy\'s schedule while the server runs', async () => {

        const policiesDir = copyPolicies();
        editPolicyFile(policiesDir, 'messaging.yaml', 'cleanup_schedule: "17 3 * * *"', 'cleanup_schedule: "* * * * * *"');
        const running = await testServer({ shareWith: server, policiesDir });
        try {
            const { MessagingChange } = running.app.services.models;
            const { familyLongId } = await messagingFamily(running, 1);
            const change = { family_long_id: familyLongId, conversation_id: null, user_id: null, kind: 'block' as const, action: 'created' as const, record_id: 'usr_x', revision: 1 };
            const [expired, kept] = [
                await MessagingChange.create({ ...change, occurred_at: new Date(Date.now() - 31 * DAY_MS) }),
                await MessagingChange.create({ ...change, occurred_at: new Date(Date.now() - 29 * DAY_MS) })
            ];
            await running.start();
            // The schedule runs every second: polled until it has, for at most five.
            for (const deadline = Date.now() + 5000; await MessagingChange.findByPk(expired.id);) {
                expect(Date.now(), 'the expired change deleted').to.be.below(deadline);
                await new Promise((resolve) => setTimeout(resolve, 50));
            }

            expect(await MessagingChange.findByPk(kept.id)).to.exist();
        }
        finally {
            await running.stop();
        }
    });
});
