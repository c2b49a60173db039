import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { restoreFamilyMessaging, suspendFamily, suspendFamilyMessaging, unsuspendFamily } from '../../../lib/accounts/families';
import { setUserDisabled } from '../../../lib/accounts/users';
import { recordId } from '../../../lib/ids';
import { blockUser, unblockUser } from '../../../lib/messaging/blocks';
import { recheckOpenConflicts, type OutboxItem } from '../../../lib/messaging/conflicts';
import type { MessageUploads } from '../../../lib/messaging/context';
import { createGroup, removeGroupMember, startDirectConversation } from '../../../lib/messaging/conversations';
import { messageHistory } from '../../../lib/messaging/messages';
import { flushOutbox } from '../../../lib/messaging/outbox';
import { currentRefusal } from '../../../lib/messaging/rechecks';
import { TestMessageUploads } from '../../helpers/message-uploads';
import { messagingFamily } from '../../helpers/messaging';
import { testServer } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('outbox rechecks', () => {

    let server: Server;
    let realUploads: MessageUploads;
    const uploads = new TestMessageUploads();

    before(async () => {

        server = await testServer();
        realUploads = server.app.services.messaging.uploads;
        server.app.services.messaging.uploads = uploads;
    });

    after(() => server.stop());

    const context = () => server.app.services.messaging;
    const item = (conversationId: string, extra: Partial<OutboxItem> = {}): OutboxItem => ({
        idempotency_key: recordId('key'), conversation_id: conversationId, client_time: new Date().toISOString(), body: 'Written offline', ...extra
    });

    it('reads each refusal as its reason: account state, conversation access, blocks, storage quota, attachment policy', async () => {

        const { familyLongId, users, actors } = await messagingFamily(server, 3);
        const accounts = server.app.services.accounts;
        const { conversation: direct } = await startDirectConversation(context(), actors[0], users[1].id);
        const group = await createGroup(context(), actors[0], 'Cousins', [users[1].id, users[2].id]);
        const other = await messagingFamily(server, 2);
        const { conversation: elsewhere } = await startDirectConversation(context(), other.actors[0], other.users[1].id);
        const reasonOf = async (actor = actors[0], sent = item(direct.id)) => (await currentRefusal(context(), actor, sent))?.reason;

        expect(await reasonOf()).to.be.undefined();

        await setUserDisabled(accounts, users[0].id, true);
        expect(await reasonOf()).to.equal('account_disabled');
        await setUserDisabled(accounts, users[0].id, false);
        await suspendFamily(accounts, familyLongId, 'Unusual traffic', 'test');
        expect(await reasonOf()).to.equal('account_disabled');
        await unsuspendFamily(accounts, familyLongId);
        await suspendFamilyMessaging(accounts, familyLongId, 'Spam reports', 'test');
        const suspended = await currentRefusal(context(), actors[0], item(direct.id));
        expect(suspended?.reason).to.equal('account_disabled');
        expect(suspended!.message).to.endWith('Reason: Spam reports');
        await restoreFamilyMessaging(accounts, familyLongId);

        expect(await reasonOf(actors[0], item(elsewhere.id))).to.equal('conversation_access');
        expect(await reasonOf(actors[0], item(recordId('cnv')))).to.equal('conversation_access');
        await removeGroupMember(context(), actors[0], group.id, users[2].id);
        expect(await reasonOf(actors[2], item(group.id))).to.equal('conversation_access');

        await blockUser(context(), actors[1], users[0].id);
        expect(await currentRefusal(context(), actors[0], item(direct.id))).to.equal({ reason: 'blocked', message: 'This person does not accept your messages.' });
        expect(await reasonOf(actors[0], item(group.id))).to.be.undefined();          // in groups a block only hides
        await unblockUser(context(), actors[1], users[0].id);

        const zip = uploads.add(actors[0], { media_type: 'application/zip' });
        expect(await currentRefusal(context(), actors[0], item(direct.id, { upload_ids: [zip] }))).to.equal({ reason: 'attachment_policy', message: 'application/zip files cannot be sent in messages.' });
        expect(await reasonOf(actors[0], item(direct.id, { upload_ids: [uploads.add(actors[1])] }))).to.equal('attachment_policy');        // not theirs
        expect(await reasonOf(actors[0], item(direct.id, { upload_ids: [recordId('upl')] }))).to.equal('attachment_policy');

        const photo = uploads.add(actors[0], { size_bytes: 3000 });
        uploads.quotaBytes.set(familyLongId, 2000);
        expect(await reasonOf(actors[0], item(direct.id, { upload_ids: [photo] }))).to.equal('storage_quota');
        uploads.quotaBytes.delete(familyLongId);

        // Passing the rechecks sends nothing and claims no file.
        expect(await reasonOf(actors[0], item(direct.id, { upload_ids: [photo] }))).to.be.undefined();
        expect(uploads.isClaimed(photo)).to.be.false();
        expect((await messageHistory(context(), actors[0], direct.id, {})).messages).to.equal([]);
    });

    it('keeps an item naming an upload the service does not have (the real uploads) as an attachment_policy conflict', async () => {

        const { users, actors } = await messagingFamily(server, 2);
        const { conversation } = await startDirectConversation(context(), actors[0], users[1].id);
        context().uploads = realUploads;
        try {
            const [outcome] = await flushOutbox(context(), actors[0], { grantId: 'dev_test', prefix: '/messaging/v1' }, [item(conversation.id, { upload_ids: [recordId('upl')] })]);
            expect(outcome).to.include({ outcome: 'conflict' });
            expect((outcome as { conflict: { reason: string } }).conflict.reason).to.equal('attachment_policy');
        }
        finally {
            context().uploads = uploads;
        }
    });

    it('rechecks open conflicts on reconnection: a changed cause updates the conflict and is recorded, an unchanged one is left', async () => {

        const { users, actors } = await messagingFamily(server, 3);
        const { conversation: direct } = await startDirectConversation(context(), actors[0], users[1].id);
        const group = await createGroup(context(), actors[1], 'Cousins', [users[0].id, users[2].id]);
        await blockUser(context(), actors[1], users[0].id);
        const flusher = { grantId: recordId('dev'), prefix: '/messaging/v1' };
        const outcomes = await flushOutbox(context(), actors[0], flusher, [item(direct.id), item(group.id)]);
        expect(outcomes.map((outcome) => outcome.outcome)).to.equal(['conflict', 'sent']);
        const conflictId = (outcomes[0] as { conflict: { id: string } }).conflict.id;

        expect(await recheckOpenConflicts(context(), actors[0])).to.equal([]);

        await unblockUser(context(), actors[1], users[0].id);
        const [cleared] = await recheckOpenConflicts(context(), actors[0]);
        expect(cleared.get()).to.include({ id: conflictId, reason: 'blocked', message: 'Nothing stops this message now: retry to send it, or discard it.', status: 'open', revision: 2 });

        await blockUser(context(), actors[0], users[1].id);
        const [blockedAgain] = await recheckOpenConflicts(context(), actors[0]);
        expect(blockedAgain.get()).to.include({ reason: 'blocked', message: 'You have blocked this person: unblock them to write to them.', revision: 3 });

        await removeGroupMember(context(), actors[1], group.id, users[0].id);
        const [{ conflict: left }] = await flushOutbox(context(), actors[0], flusher, [item(group.id)]) as unknown as [{ conflict: { id: string; after_message_id: unknown } }];
        expect(left.after_message_id).to.be.null();          // not theirs to see any more
        expect(await recheckOpenConflicts(context(), actors[0])).to.equal([]);

        const changes = await context().models.MessagingChange.findAll({ where: { record_id: conflictId }, order: [['id', 'ASC']] });
        expect(changes.map((change) => [change.kind, change.action, change.revision, change.user_id, change.conversation_id])).to.equal([
            ['conflict', 'created', 1, users[0].id, null],
            ['conflict', 'updated', 2, users[0].id, null],
            ['conflict', 'updated', 3, users[0].id, null]
        ]);
    });
});
