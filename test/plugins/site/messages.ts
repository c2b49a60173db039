import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { createFamily, restoreFamilyMessaging, suspendFamilyMessaging } from '../../../lib/accounts/families';
import { setUserDisabled } from '../../../lib/accounts/users';
import { recordId } from '../../../lib/ids';
import { blockUser, unblockUser } from '../../../lib/messaging/blocks';
import type { MessagingActor } from '../../../lib/messaging/context';
import { createGroup, startDirectConversation } from '../../../lib/messaging/conversations';
import { editMessage, sendMessage } from '../../../lib/messaging/messages';
import { flushOutbox } from '../../../lib/messaging/outbox';
import type { MessagingConflict } from '../../../models/messaging-conflict';
import { testServer, testVariant } from '../../helpers/server';
import { siteAccount } from './client';
import { HttpBrowser } from './http-browser';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/** The message ids a conversation page shows, in the order it shows them. */
const messageIdsOn = (page: string) => [...page.matchAll(/data-message-id="(msg_[0-9A-Za-z]+)"/g)].map((match) => match[1]);

/** The unread total the header's Messages link shows; undefined when it shows none. */
const unreadTotalOn = (page: string) => /data-testid="unread-total"><span class="visually-hidden">\(<\/span>(\d+)</.exec(page)?.[1];

describe(`the /messages pages over HTTP on ${testVariant}`, () => {

    let server: Server;

    before(async () => {

        server = await testServer();
        await server.start();
    });

    after(async () => {

        await server.stop();
    });

    interface Person {
        browser: HttpBrowser;
        actor: MessagingActor;
        email: string;
    }

    /** A family of its own: a manager, then members, each signed in in a browser of their own. */
    async function family(count: number): Promise<Person[]> {

        const { family_long_id: familyLongId } = await createFamily(server.app.services.accounts, { name: 'Messages family', plan: 'family' });
        const people: Person[] = [];
        for (let index = 0; index < count; ++index) {
            const role = index === 0 ? 'manager' : 'member';
            const { user, email, password } = await siteAccount(server, { role, familyLongId });
            const browser = await new HttpBrowser(server).signIn(email, password);
            people.push({ browser, email, actor: { userId: user.id, familyLongId, isManager: role === 'manager' } });
        }

        return people;
    }

    const messaging = () => server.app.services.messaging;
    const direct = async (one: Person, other: Person) => (await startDirectConversation(messaging(), one.actor, other.actor.userId)).conversation.id;
    const say = async (person: Person, conversationId: string, body: string) => (await sendMessage(messaging(), person.actor, conversationId, { body })).id;

    it('sends an anonymous visitor to /login and back, for the pages and their forms alike', async () => {

        const browser = new HttpBrowser(server);
        const list = await browser.get('/messages');
        expect(list.status).to.equal(302);
        expect(list.location).to.equal('/login?next=%2Fmessages');
        expect((await browser.get('/messages/cnv_00000000000000000000')).location).to.equal('/login?next=%2Fmessages%2Fcnv_00000000000000000000');
        await browser.get('/login');
        const form = await browser.post('/messages/direct', { user_id: 'usr_00000000000000000000' });
        expect(form.status).to.equal(302);
        expect(form.location!).to.startWith('/login');
    });

    it('lists the conversations with their titles, unread counts and last activity, and the header\'s unread total', async () => {

        const [manager, zoe, mateo] = await family(3);
        const withZoe = await direct(manager, zoe);
        await say(zoe, withZoe, 'Hello from Zoë');
        await say(zoe, withZoe, 'Are you there?');
        const group = await createGroup(messaging(), mateo.actor, 'Reunion planning', [manager.actor.userId, zoe.actor.userId]);
        await say(mateo, group.id, 'Patio booked');

        const page = await manager.browser.get('/messages');
        expect(page.status).to.equal(200);
        expect(page.headers.get('content-security-policy')).to.contain('script-src \'self\'');
        expect(page.headers.get('cache-control')).to.equal('no-store');
        expect(page.text).to.contain('<a class="nowrap" href="/messages" aria-current="page">Messages');
        expect(unreadTotalOn(page.text)).to.equal('3');
        const link = (id: string) => new RegExp(`href="/messages/${id}" data-conversation-id="${id}">[\\s\\S]*?</a>`).exec(page.text)![0];
        expect(link(withZoe)).to.contain(zoe.email);
        expect(link(withZoe)).to.contain('2 unread');
        expect(link(withZoe)).to.contain('Direct · last message');
        expect(link(group.id)).to.contain('Reunion planning');
        expect(link(group.id)).to.contain('Group · 3 members');
        expect(link(group.id)).to.contain('1 unread');
        // The most recently active first.
        expect(page.text.indexOf(group.id)).to.be.below(page.text.indexOf(withZoe));

        // The forms that start a conversation offer the family's other people, not the user, nor anyone else's family.
        const [stranger] = await family(1);
        expect(page.text).to.contain(`<option value="${zoe.actor.userId}">`);
        expect(page.text).to.not.contain(`<option value="${manager.actor.userId}"`);
        expect(page.text).to.not.contain(stranger.email);
    });

    it('opens a conversation, marks it read, and sends a message the other person sees as unread', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        await say(zoe, id, 'First from Zoë');

        const opened = await manager.browser.get(`/messages/${id}`);
        expect(opened.status).to.equal(200);
        expect(opened.text).to.contain('First from Zoë');
        expect(opened.text.match(/badge-info">New</g)).to.have.length(1);
        expect(opened.text).to.contain(`<h1 dir="auto">${zoe.email}</h1>`);
        expect(unreadTotalOn(opened.text)).to.be.undefined();
        expect(unreadTotalOn((await manager.browser.get('/messages')).text)).to.be.undefined();
        expect((await manager.browser.get(`/messages/${id}`)).text).to.not.contain('badge-info">New<');

        const sent = await manager.browser.post(`/messages/${id}`, { body: 'Hi Zoë,\nsee you on Sunday.' });
        expect(sent.status).to.equal(302);
        const [, messageId] = /^\/messages\/cnv_\w+#(msg_\w+)$/.exec(sent.location!)!;
        const message = await server.app.services.models.Message.findByPk(messageId);
        expect(message!.body).to.equal('Hi Zoë,\nsee you on Sunday.');

        const theirs = await zoe.browser.get('/messages');
        expect(unreadTotalOn(theirs.text)).to.equal('1');
        const page = await zoe.browser.get(`/messages/${id}`);
        expect(messageIdsOn(page.text).at(-1)).to.equal(messageId);
        expect(page.text).to.contain('see you on Sunday.');

        // An empty message is refused in words on the page, which keeps nothing but says why.
        const empty = await manager.browser.post(`/messages/${id}`, { body: '   ' });
        expect(empty.status).to.equal(422);
        expect(empty.text).to.contain('a message needs text or a file');
        const long = 'x'.repeat(server.app.services.policyStore.current().messaging.conversations.message_max_characters + 1);
        const tooLong = await manager.browser.post(`/messages/${id}`, { body: long });
        expect(tooLong.status).to.equal(422);
        expect(tooLong.text).to.contain('a message is at most 4000 characters');
        expect(tooLong.text).to.contain(`>${long}</textarea>`);
    });

    it('edits and deletes one\'s own messages; a stale revision shows the current text, and a deleted one a tombstone', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        const messageId = await say(manager, id, 'Dinner at 7');
        await say(zoe, id, 'Zoë\'s own words');

        const page = await manager.browser.get(`/messages/${id}`);
        expect(page.text).to.contain(`action="/messages/${id}/messages/${messageId}/edit"`);
        expect(page.text.match(/\/edit"/g)).to.have.length(1);        // Zoë's message offers no edit

        const edited = await manager.browser.post(`/messages/${id}/messages/${messageId}/edit`, { body: 'Dinner at 8', revision: '1' });
        expect(edited.location).to.equal(`/messages/${id}?notice=message-edited`);
        expect((await manager.browser.get(edited.location!)).text).to.contain('Your message is changed.');
        const after = await zoe.browser.get(`/messages/${id}`);
        expect(after.text).to.contain('Dinner at 8');
        expect(after.text).to.contain('· edited');

        // The page opened before that edit sends revision 1 again: refused, with the text as it is now and the one typed.
        const stale = await manager.browser.post(`/messages/${id}/messages/${messageId}/edit`, { body: 'Dinner at 9', revision: '1' });
        expect(stale.status).to.equal(409);
        expect(stale.text).to.contain('Not saved: the message changed');
        expect(stale.text).to.contain('<blockquote class="message-body" dir="auto" data-testid="current-text">Dinner at 8</blockquote>');
        expect(stale.text).to.contain('>Dinner at 9</textarea>');
        expect(stale.text).to.contain('name="revision" value="2"');
        expect((await server.app.services.models.Message.findByPk(messageId))!.body).to.equal('Dinner at 8');

        const staleDelete = await manager.browser.post(`/messages/${id}/messages/${messageId}/delete`, { revision: '1' });
        expect(staleDelete.status).to.equal(409);
        expect(staleDelete.text).to.contain('Not deleted: the message changed');

        const deleted = await manager.browser.post(`/messages/${id}/messages/${messageId}/delete`, { revision: '2' });
        expect(deleted.location).to.equal(`/messages/${id}?notice=message-deleted`);
        const tombstone = await zoe.browser.get(`/messages/${id}`);
        expect(tombstone.text).to.contain('This message was deleted');
        expect(tombstone.text).to.not.contain('Dinner at 8');
        expect(messageIdsOn(tombstone.text)).to.include(messageId);

        // Someone else's message is theirs to change: a 403 in words, nothing changed.
        const zoes = await say(zoe, id, 'Mine');
        const refused = await manager.browser.post(`/messages/${id}/messages/${zoes}/edit`, { body: 'Not mine', revision: '1' });
        expect(refused.status).to.equal(403);
        expect(refused.text).to.contain('Only its sender edits or deletes a message.');
        expect(refused.text).to.not.contain('Not mine');
        expect((await server.app.services.models.Message.findByPk(zoes))!.body).to.equal('Mine');
    });

    it('blocks and unblocks from the conversation page: a blocked direct conversation says so and takes no message', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        await say(zoe, id, 'Before the block');

        const blocked = await manager.browser.post(`/messages/people/${zoe.actor.userId}/block`, { conversation: id });
        expect(blocked.location).to.equal(`/messages/${id}?notice=person-blocked`);
        const page = await manager.browser.get(blocked.location!);
        expect(page.text).to.contain('You have blocked this person: unblock them to write to them.');
        expect(page.text).to.not.contain('id="compose"');
        expect(page.text).to.contain(`action="/messages/people/${zoe.actor.userId}/unblock"`);
        expect((await manager.browser.post(`/messages/people/${zoe.actor.userId}/block`, { conversation: id })).location).to.equal(`/messages/${id}?notice=person-already-blocked`);

        // The blocked person's page says they cannot write; a hand-made send is refused with the service's words.
        expect((await zoe.browser.get(`/messages/${id}`)).text).to.contain('This person does not accept your messages');
        const refused = await zoe.browser.post(`/messages/${id}`, { body: 'Let me in' });
        expect(refused.status).to.equal(403);
        expect(refused.text).to.contain('This person does not accept your messages.');
        expect(refused.text).to.contain('data-testid="blocked-notice"');
        expect(refused.text).to.contain('data-testid="unsent-text">Let me in</blockquote>');

        const list = await manager.browser.get('/messages');
        expect(list.text).to.match(new RegExp(`<bdi>${zoe.email}</bdi> <span class="muted small">since`));
        expect(list.text).to.contain(`<option value="${zoe.actor.userId}" disabled>`);

        const unblocked = await manager.browser.post(`/messages/people/${zoe.actor.userId}/unblock`);
        expect(unblocked.location).to.equal('/messages?notice=person-unblocked');
        expect((await manager.browser.post(`/messages/people/${zoe.actor.userId}/unblock`)).location).to.equal('/messages?notice=person-not-blocked');
        expect((await zoe.browser.post(`/messages/${id}`, { body: 'Thanks' })).status).to.equal(302);

        // Blocking someone of another family, or oneself: never done.
        const [stranger] = await family(1);
        const strangers = await manager.browser.post(`/messages/people/${stranger.actor.userId}/block`);
        expect(strangers.status).to.equal(404);
        expect(strangers.text).to.contain('There is nothing here, or nothing you can see.');
        expect((await manager.browser.post(`/messages/people/${manager.actor.userId}/block`)).status).to.equal(400);
    });

    it('starts a direct conversation (the same one again) and a group, and refuses a group without a name in words', async () => {

        const [manager, zoe, mateo] = await family(3);
        const started = await manager.browser.post('/messages/direct', { user_id: zoe.actor.userId });
        expect(started.location).to.match(/^\/messages\/cnv_\w+$/);
        expect((await manager.browser.post('/messages/direct', { user_id: zoe.actor.userId })).location).to.equal(started.location);
        expect((await zoe.browser.post('/messages/direct', { user_id: manager.actor.userId })).location).to.equal(started.location);

        const group = await manager.browser.post('/messages/groups', { title: 'Bakery history', member_ids: [zoe.actor.userId, mateo.actor.userId] });
        expect(group.location).to.match(/^\/messages\/cnv_\w+$/);
        const page = await mateo.browser.get(group.location!);
        expect(page.text).to.contain('<h1 dir="auto">Bakery history</h1>');
        expect(page.text).to.contain('<title>\u2068Bakery history\u2069 · Family Records</title>');
        expect(page.text).to.contain('3 members');
        expect(page.text).to.contain(`Group started by <bdi>${manager.email}</bdi>`);

        const unnamed = await manager.browser.post('/messages/groups', { title: '  ', member_ids: [mateo.actor.userId] });
        expect(unnamed.status).to.equal(422);
        expect(unnamed.text).to.contain('a group&#x27;s name is 1 to 100 characters');
        expect(unnamed.text).to.contain(`value="${mateo.actor.userId}" checked`);
        expect(unnamed.text).to.not.contain(`value="${zoe.actor.userId}" checked`);

        const [stranger] = await family(1);
        expect((await manager.browser.post('/messages/direct', { user_id: stranger.actor.userId })).status).to.equal(404);
        expect((await manager.browser.post('/messages/direct', { user_id: 'not an id' })).status).to.equal(400);
    });

    it('lets a group\'s creator add and remove members, a member leave, and nobody else manage it', async () => {

        const [manager, zoe, mateo, lena] = await family(4);
        const group = await createGroup(messaging(), zoe.actor, 'Cousins', [mateo.actor.userId]);
        const base = `/messages/${group.id}`;

        const page = await zoe.browser.get(base);
        expect(page.text).to.contain(`action="${base}/members/${mateo.actor.userId}/remove"`);
        expect(page.text).to.contain(`<option value="${lena.actor.userId}">`);
        expect((await zoe.browser.post(`${base}/members`, { user_id: lena.actor.userId })).location).to.equal(`${base}?notice=member-added`);
        expect((await lena.browser.get(base)).status).to.equal(200);

        // Mateo is a member, not its creator nor a manager: no Remove, and a hand-made one is refused in words.
        expect((await mateo.browser.get(base)).text).to.not.contain('/remove"');
        const refused = await mateo.browser.post(`${base}/members/${lena.actor.userId}/remove`);
        expect(refused.status).to.equal(403);
        expect(refused.text).to.contain('Only the group&#x27;s creator or a family manager');

        expect((await zoe.browser.post(`${base}/members/${lena.actor.userId}/remove`)).location).to.equal(`${base}?notice=member-removed`);
        expect((await lena.browser.get(base)).status).to.equal(404);
        expect((await mateo.browser.post(`${base}/leave`)).location).to.equal('/messages?notice=group-left');
        expect((await mateo.browser.get(base)).status).to.equal(404);
        // The family's manager, not in the group, cannot reach it either.
        expect((await manager.browser.get(base)).status).to.equal(404);
    });

    it('answers 404 for another family\'s conversation and one the user is not in, on every route, without a word of it', async () => {

        const [manager, zoe, mateo] = await family(3);
        const id = await direct(manager, zoe);
        const messageId = await say(manager, id, 'Private between us');
        const [stranger] = await family(1);

        for (const outsider of [mateo, stranger]) {
            for (const answer of [
                await outsider.browser.get(`/messages/${id}`),
                await outsider.browser.post(`/messages/${id}`, { body: 'Intruding' }),
                await outsider.browser.post(`/messages/${id}/messages/${messageId}/edit`, { body: 'Changed', revision: '1' }),
                await outsider.browser.post(`/messages/${id}/messages/${messageId}/delete`, { revision: '1' }),
                await outsider.browser.post(`/messages/${id}/members`, { user_id: outsider.actor.userId }),
                await outsider.browser.post(`/messages/${id}/leave`)
            ]) {
                expect(answer.status).to.equal(404);
                expect(answer.text).to.contain('There is nothing here, or nothing you can see.');
                expect(answer.text).to.not.contain('Private between us');
            }
        }

        expect((await server.app.services.models.Message.count({ where: { conversation_id: id } }))).to.equal(1);
        expect((await manager.browser.get('/messages/cnv_00000000000000000000')).status).to.equal(404);
    });

    it('refuses a form without the CSRF token: nothing sent', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        const forged = await manager.browser.post(`/messages/${id}`, { body: 'Forged' }, { crumb: false });
        expect(forged.status).to.equal(403);
        expect((await manager.browser.post(`/messages/${id}`, { body: 'Forged', crumb: 'x'.repeat(43) }, { crumb: false })).status).to.equal(403);
        expect((await manager.browser.post(`/messages/people/${zoe.actor.userId}/block`, {}, { crumb: false })).status).to.equal(403);
        expect(await server.app.services.models.Message.count({ where: { conversation_id: id } })).to.equal(0);
        expect(await server.app.services.models.UserBlock.count({ where: { blocker_id: manager.actor.userId } })).to.equal(0);
    });

    it('escapes hostile text: message bodies, group names, emails of conflicts\' items', async () => {

        const [manager, zoe] = await family(2);
        const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>';
        const group = await createGroup(messaging(), zoe.actor, `${hostile} group`, [manager.actor.userId]);
        await say(zoe, group.id, hostile);
        await server.app.services.models.MessagingConflict.create({
            id: recordId('cfl'), family_long_id: manager.actor.familyLongId, user_id: manager.actor.userId, grant_id: null, conversation_id: group.id,
            reason: 'blocked', message: 'Blocked.', item: { body: hostile }, after_message_id: null, status: 'open', revision: 1, created_at: new Date()
        });

        for (const page of [await manager.browser.get('/messages'), await manager.browser.get(`/messages/${group.id}`)]) {
            expect(page.status).to.equal(200);
            expect(page.text).to.not.contain('<script>alert');
            expect(page.text).to.not.contain('<img src=x');
            expect(page.text).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
        }
    });

    it('shows the user\'s open conflicts, each reason explained, and not another user\'s or a resolved one', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        const conflict = (userId: string, reason: 'storage_quota' | 'conversation_access' | 'account_disabled', body: string, status: 'open' | 'resolved' = 'open') => server.app.services.models.MessagingConflict.create({
            id: recordId('cfl'), family_long_id: manager.actor.familyLongId, user_id: userId, grant_id: null, conversation_id: id,
            reason, message: 'Refused.', item: { body }, after_message_id: null, status, revision: 1, created_at: new Date()
        });
        await conflict(manager.actor.userId, 'storage_quota', 'The scans, offline');
        await conflict(manager.actor.userId, 'conversation_access', 'Resolved already', 'resolved');
        await conflict(zoe.actor.userId, 'account_disabled', 'Zoë\'s own');

        const page = await manager.browser.get('/messages');
        expect(page.text).to.contain('Messages your devices could not deliver');
        expect(page.text).to.contain('storage_quota');
        expect(page.text).to.contain('did not fit in your family&#x27;s storage quota');
        expect(page.text).to.contain('The scans, offline');
        expect(page.text).to.contain(`In <a href="/messages/${id}"><bdi>${zoe.email}</bdi></a>`);
        expect(page.text).to.not.contain('Resolved already');
        expect(page.text).to.not.contain('Zoë&#x27;s own');
        expect((await zoe.browser.get('/messages')).text).to.contain('Zoë&#x27;s own');
    });

    it('sends a held-back message again once its cause is gone, discards another, and refuses a stale or another user\'s resolution', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        await blockUser(messaging(), zoe.actor, manager.actor.userId);
        const flusher = { grantId: recordId('dev'), prefix: '/messaging/v1' };
        const item = (body: string) => ({ idempotency_key: recordId('key'), conversation_id: id, client_time: new Date().toISOString(), body });
        const outcomes = await flushOutbox(messaging(), manager.actor, flusher, [item('Sent later'), item('Never mind')]);
        const [later, never] = outcomes.map((outcome) => (outcome as { conflict: MessagingConflict }).conflict);
        expect(later.reason).to.equal('blocked');

        const page = await manager.browser.get('/messages');
        expect(page.text).to.contain(`action="/messages/conflicts/${later.id}/retry"`);
        const stillBlocked = await manager.browser.post(`/messages/conflicts/${later.id}/retry`, { revision: String(later.revision) });
        expect(stillBlocked.location).to.equal('/messages?notice=conflict-still-refused');
        expect(await zoe.browser.post(`/messages/conflicts/${later.id}/discard`, { revision: String(later.revision) }).then((answer) => answer.status)).to.equal(404);
        const stale = await manager.browser.post(`/messages/conflicts/${never.id}/discard`, { revision: '7' });
        expect(stale.location).to.equal('/messages?notice=conflict-changed');

        await unblockUser(messaging(), zoe.actor, manager.actor.userId);
        const current = await server.app.services.models.MessagingConflict.findByPk(later.id);
        const sent = await manager.browser.post(`/messages/conflicts/${later.id}/retry`, { revision: String(current!.revision) });
        expect(sent.location).to.equal('/messages?notice=conflict-sent');
        expect((await zoe.browser.get(`/messages/${id}`)).text).to.contain('Sent later');
        expect((await manager.browser.post(`/messages/conflicts/${never.id}/discard`, { revision: String(never.revision) })).location).to.equal('/messages?notice=conflict-discarded');
        const after = await manager.browser.get('/messages');
        expect(after.text).to.not.contain('Never mind');
        expect((await manager.browser.post(`/messages/conflicts/${never.id}/discard`, { revision: String(never.revision + 1) })).status).to.equal(409);
    });

    it('pages the history: the newest page first, "Older messages" with the cursor, and shows a message\'s files as links', async () => {

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        const pageSize = server.app.services.policyStore.current().messaging.conversations.page_size;
        const first = await sendMessage(messaging(), zoe.actor, id, {
            body: 'The oldest, with files',
            attach: () => Promise.resolve([{ upload_id: 'upl_1', file_name: 'hochzeit-1956.png', media_type: 'image/png', size_bytes: 2_411_724 }])
        });
        const ids = [first.id];
        for (let index = 1; index <= pageSize; ++index) {
            ids.push(await say(index % 2 ? manager : zoe, id, `Message ${index}`));
        }

        const newest = await manager.browser.get(`/messages/${id}`);
        expect(messageIdsOn(newest.text)).to.equal(ids.slice(1));
        const [, cursor] = /href="\/messages\/cnv_\w+\?cursor=([\w-]+)" rel="prev">Older messages</.exec(newest.text)!;
        const older = await manager.browser.get(`/messages/${id}?cursor=${cursor}`);
        expect(messageIdsOn(older.text)).to.equal([first.id]);
        expect(older.text).to.not.contain('Older messages');
        expect(older.text).to.contain('Newest messages');
        expect(older.text).to.contain(`href="/messages/${id}/files/upl_1" dir="auto" data-upload-id="upl_1">hochzeit-1956.png</a>`);
        expect(older.text).to.contain('image/png · 2.3 MB');

        expect((await manager.browser.get(`/messages/${id}?cursor=nonsense`)).status).to.equal(400);
    });

    it('keeps out a super-admin of no family and a family whose messaging is suspended, saying why, and a disabled user\'s session ends', async () => {

        const admin = await siteAccount(server, { role: 'super-admin' });
        const browser = await new HttpBrowser(server).signIn(admin.email, admin.password);
        const page = await browser.get('/messages');
        expect(page.status).to.equal(403);
        expect(page.text).to.contain('Messages are for the members of a family');
        expect(page.text).to.not.contain('href="/messages"');

        const [manager, zoe] = await family(2);
        const id = await direct(manager, zoe);
        await editMessage(messaging(), manager.actor, await say(manager, id, 'Before'), 'Before, edited');
        const { accounts } = server.app.services;
        await suspendFamilyMessaging(accounts, manager.actor.familyLongId, 'Spam <b>reported</b>', 'test');
        for (const answer of [await zoe.browser.get('/messages'), await zoe.browser.get(`/messages/${id}`), await zoe.browser.post(`/messages/${id}`, { body: 'Still here?' })]) {
            expect(answer.status).to.equal(403);
            expect(answer.text).to.contain('Messaging is suspended for this family');
            expect(answer.text).to.contain('Reason: Spam &lt;b&gt;reported&lt;/b&gt;');
            expect(answer.text).to.not.contain('Before, edited');
        }

        expect(await server.app.services.models.Message.count({ where: { conversation_id: id } })).to.equal(1);
        await restoreFamilyMessaging(accounts, manager.actor.familyLongId);
        expect((await zoe.browser.get(`/messages/${id}`)).status).to.equal(200);

        await setUserDisabled(accounts, zoe.actor.userId, true);
        const disabled = await zoe.browser.get(`/messages/${id}`);
        expect(disabled.status).to.equal(302);
        expect(disabled.location!).to.startWith('/login');
    });

    it('shows a blocked sender\'s messages in a group to nobody who blocked them', async () => {

        const [manager, zoe, mateo] = await family(3);
        const group = await createGroup(messaging(), manager.actor, 'All of us', [zoe.actor.userId, mateo.actor.userId]);
        await say(mateo, group.id, 'Mateo speaking');
        await blockUser(messaging(), zoe.actor, mateo.actor.userId);

        expect((await zoe.browser.get(`/messages/${group.id}`)).text).to.not.contain('Mateo speaking');
        expect((await manager.browser.get(`/messages/${group.id}`)).text).to.contain('Mateo speaking');
    });
});
