import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Change, Conversation, DesktopClient, Message } from 'family-records-desktop';

import { connectDesktopClient, desktopService, type DesktopMember, type DesktopService } from '../helpers/desktop-service';
import { messagingRequest } from '../helpers/messaging-api';
import { scratchDirectory } from '../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('desktop engine: sending, syncing and conflicts against the service', () => {

    let service: DesktopService;
    let ann: DesktopMember;
    let ben: DesktopMember;
    let client: DesktopClient;
    let benToken: string;
    let annOtherDevice: string;
    let direct: Conversation;
    let group: Conversation;
    let loseNextOutboxAnswer = false;

    before(async () => {

        service = await desktopService();
        ann = await service.member();
        ben = await service.member();
        const cleo = await service.member();
        client = await connectDesktopClient(service, ann);
        benToken = (await service.connectDevice(ben.user)).access_token;
        annOtherDevice = (await service.connectDevice(ann.user)).access_token;
        direct = await client.api.startDirect(ben.user.id);
        group = await client.api.startGroup('Cousins', [ben.user.id, cleo.user.id]);

        // The answer to a flush is lost after the service applied it: the relay carries nothing more, then drops the connection.
        service.server.ext('onPreResponse', (request, h) => {

            if (loseNextOutboxAnswer && request.path === '/messaging/v1/outbox') {
                loseNextOutboxAnswer = false;
                service.relay.freeze();
                setTimeout(() => service.relay.cut(), 20);
            }

            return h.continue;
        });
    });

    after(async () => {

        await client.close();
        await service.stop();
    });

    /** The conversation's history as the service has it, oldest first (as Ben sees it). */
    const historyOf = async (conversation: Conversation): Promise<Message[]> => {

        const response = await messagingRequest(service.server, benToken, 'GET', `/conversations/${conversation.id}/messages?limit=100`);
        return ((response.result as { data: Message[] }).data).reverse();
    };

    const bodiesOf = (messages: Message[]) => messages.map((message) => message.body);

    const writeFile = (name: string, content: string) => {

        const path = Path.join(scratchDirectory(), name);
        Fs.writeFileSync(path, content);
        return path;
    };

    it('sends a message online: written to the outbox, sent once, cached', async () => {

        const item = await client.send(direct.id, { body: 'Dinner on Sunday?' });
        expect(item.body).to.equal('Dinner on Sunday?');
        await client.flush();
        expect(await client.store.outboxItems()).to.equal([]);
        const history = await historyOf(direct);
        expect(bodiesOf(history)).to.equal(['Dinner on Sunday?']);
        expect(history[0].client_time).to.equal(item.clientTime);
        expect((await client.store.messages(direct.id)).map((message) => message.id)).to.equal([history[0].id]);
        expect(client.online).to.be.true();
    });

    it('keeps what is written offline, then sends it in order per conversation, exactly once, files uploaded first', async () => {

        const before = { direct: (await historyOf(direct)).length, group: (await historyOf(group)).length };
        await service.goOffline();
        try {
            await client.send(direct.id, { body: 'one' });
            await client.send(group.id, { body: 'group one' });
            await client.send(direct.id, { body: 'two, with the menu', files: [writeFile('menu.txt', 'soup, then cake')] });
            await client.send(direct.id, { body: 'three' });
            await client.send(group.id, { body: 'group two' });
            expect(await client.flush()).to.equal({ sent: 0, conflicts: 0, waiting: 5 });
            expect(client.online).to.be.false();
        }
        finally {
            await service.goOnline();
        }

        expect(await client.flush()).to.equal({ sent: 5, conflicts: 0, waiting: 0 });
        expect(await client.flush()).to.equal({ sent: 0, conflicts: 0, waiting: 0 });
        const directHistory = (await historyOf(direct)).slice(before.direct);
        expect(bodiesOf(directHistory)).to.equal(['one', 'two, with the menu', 'three']);
        expect(directHistory[1].attachments).to.have.length(1);
        expect(directHistory[1].attachments[0]).to.include({ file_name: 'menu.txt', size_bytes: 15 });
        expect(bodiesOf((await historyOf(group)).slice(before.group))).to.equal(['group one', 'group two']);
        expect(bodiesOf(await client.store.messages(direct.id)).slice(-3)).to.equal(['one', 'two, with the menu', 'three']);
    });

    it('sends again a message whose answer was lost: the service answers duplicate, and there is one message', async () => {

        const before = (await historyOf(direct)).length;
        loseNextOutboxAnswer = true;
        await client.send(direct.id, { body: 'did this arrive?' });
        const lost = await client.flush();
        expect(lost).to.equal({ sent: 0, conflicts: 0, waiting: 1 });
        expect(bodiesOf((await historyOf(direct)).slice(before))).to.equal(['did this arrive?']);     // applied before the answer was lost

        await service.goOnline();
        expect(await client.flush()).to.equal({ sent: 1, conflicts: 0, waiting: 0 });
        const after = (await historyOf(direct)).slice(before);
        expect(bodiesOf(after)).to.equal(['did this arrive?']);
        expect((await client.store.messages(direct.id)).filter((message) => message.id === after[0].id)).to.have.length(1);
    });

    it('stops a conversation at an item the service refuses with an error, keeps the error, and goes on once the user discards it', async () => {

        const before = (await historyOf(group)).length;
        const refused = await client.send(group.id, { body: 'x'.repeat(4001) });          // over message_max_characters: 400
        await client.send(group.id, { body: 'after the long one' });
        expect(await client.flush()).to.equal({ sent: 0, conflicts: 0, waiting: 2 });
        const [kept] = await client.store.outboxItems(group.id);
        expect(kept.seq).to.equal(refused.seq);
        expect(kept.lastError!.code).to.equal('invalid_request');
        expect((await historyOf(group)).length).to.equal(before);

        const dropped = await client.discardOutboxItem(refused.seq);
        expect(dropped.body).to.have.length(4001);
        expect(await client.flush()).to.equal({ sent: 1, conflicts: 0, waiting: 0 });
        expect(bodiesOf((await historyOf(group)).slice(before))).to.equal(['after the long one']);
    });

    it('syncs what other devices did: new, edited and deleted messages', async () => {

        await client.sync();
        const sent = await messagingRequest(service.server, benToken, 'POST', `/conversations/${direct.id}/messages`, { body: 'Sunday at 8' }, { 'idempotency-key': 'ben-1' });
        const bens = (sent.result as { data: Message }).data;
        await messagingRequest(service.server, benToken, 'PATCH', `/messages/${bens.id}`, { body: 'Sunday at 7' }, { 'if-match': '"1"' });
        const own = await messagingRequest(service.server, annOtherDevice, 'POST', `/conversations/${direct.id}/messages`, { body: 'typo' }, { 'idempotency-key': 'ann-1' });
        const typo = (own.result as { data: Message }).data;
        await messagingRequest(service.server, annOtherDevice, 'DELETE', `/messages/${typo.id}`, undefined, { 'if-match': '"1"' });

        const changes: Change[] = [];
        client.on('change', (change: Change) => changes.push(change));
        const result = await client.sync();
        client.removeAllListeners('change');
        expect(result.reset).to.be.false();
        expect(result.changes).to.be.at.least(4);
        expect(changes.filter((change) => change.kind === 'message').map((change) => change.record_id)).to.include([bens.id, typo.id]);
        const cached = await client.store.messages(direct.id);
        expect(cached.find((message) => message.id === bens.id)).to.include({ body: 'Sunday at 7', revision: 2 });
        expect(cached.find((message) => message.id === typo.id)).to.include({ deleted: true, body: null });
        expect((await client.status()).lastSyncAt).to.exist();
    });

    it('starts anew after a reset: a cursor past the retention window refetches the conversations and their latest history', async () => {

        await client.store.removeConversation(group.id);
        await client.store.setState('sync-cursor', Buffer.from('1000000000000.1').toString('base64url'));     // a change of 2001
        const result = await client.sync();
        expect(result.reset).to.be.true();
        expect(await client.store.conversation(group.id)).to.include({ id: group.id, title: 'Cousins' });
        expect(bodiesOf(await client.store.messages(group.id))).to.equal(bodiesOf(await historyOf(group)));
        expect(await client.sync()).to.equal({ changes: 0, reset: false });
    });

    it('keeps a refused message as a conflict, and resolves conflicts by retry and discard', async () => {

        await messagingRequest(service.server, benToken, 'PUT', `/blocks/${ann.user.id}`);
        await client.send(direct.id, { body: 'are you there?' });
        expect(await client.flush()).to.equal({ sent: 0, conflicts: 1, waiting: 0 });
        const [conflict] = await client.store.conflicts({ status: 'open' });
        expect(conflict).to.include({ reason: 'blocked', conversation_id: direct.id });
        expect(conflict.item.body).to.equal('are you there?');
        expect((await client.status()).openConflicts).to.equal(1);

        const stillBlocked = await client.resolve(conflict.id, 'retry');
        expect(stillBlocked.status).to.equal('open');

        await messagingRequest(service.server, benToken, 'DELETE', `/blocks/${ann.user.id}`);
        const retried = await client.resolve(conflict.id, 'retry');
        expect(retried).to.include({ status: 'resolved', resolution: 'retried' });
        expect(bodiesOf(await client.store.messages(direct.id))).to.include('are you there?');
        expect(bodiesOf(await historyOf(direct))).to.include('are you there?');

        await messagingRequest(service.server, benToken, 'PUT', `/blocks/${ann.user.id}`);
        await client.send(direct.id, { body: 'never mind' });
        await client.flush();
        await messagingRequest(service.server, benToken, 'DELETE', `/blocks/${ann.user.id}`);
        const [second] = await client.store.conflicts({ status: 'open' });
        expect(second.item.body).to.equal('never mind');
        expect(await client.resolve(second.id, 'discard')).to.include({ status: 'resolved', resolution: 'discarded' });
        expect(await client.store.conflicts({ status: 'open' })).to.equal([]);
        expect(bodiesOf(await historyOf(direct))).to.not.include('never mind');
    });

    it('watches the stream: changes reach the cache live, and a reconnection sends what was written meanwhile', async () => {

        const abort = new AbortController();
        const online = new Promise<void>((resolve) => client.once('online', () => resolve()));
        const watching = client.watch(abort.signal);
        if (!client.online) {
            await online;
        }

        const arrived = new Promise<Change>((resolve) => {

            client.on('change', (change: Change) => change.kind === 'message' && change.record?.body === 'live' && resolve(change));
        });
        await messagingRequest(service.server, benToken, 'POST', `/conversations/${group.id}/messages`, { body: 'live' }, { 'idempotency-key': 'ben-live' });
        const change = await arrived;
        expect((await client.store.messages(group.id)).map((message) => message.id)).to.include(change.record_id);

        await service.goOffline();
        await client.send(group.id, { body: 'written while away' });
        const sentAfterReconnect = new Promise<void>((resolve) => {

            client.on('outbox', (items: unknown[]) => items.length === 0 && resolve());
        });
        await service.goOnline();
        await sentAfterReconnect;
        expect(bodiesOf(await historyOf(group))).to.include('written while away');

        abort.abort();
        expect(await watching).to.include({ code: 'aborted' });
        client.removeAllListeners();
    });
});
