import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';

import { blockUser } from '../../lib/messaging/blocks';
import { createGroup, startDirectConversation } from '../../lib/messaging/conversations';
import { sendMessage } from '../../lib/messaging/messages';
import { actorOf, bodiesOnServer, connectCli, DesktopCli, waitForOutput } from '../helpers/desktop-e2e';
import { pngBytes } from '../helpers/desktop-e2e-files';
import { desktopService, type DesktopMember, type DesktopService } from '../helpers/desktop-service';
import { scratchDirectory } from '../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

/*
 * The command line `family-records-desktop` as a person and a script use it: the built bin run as child processes
 * against a real service (behind a relay that goes offline), each run starting from what the last one left on disk.
 */

describe('desktop command line', () => {

    let service: DesktopService;
    let ann: DesktopMember;
    let ben: DesktopMember;
    let carol: DesktopMember;
    let directId: string;
    let groupId: string;
    const cli = new DesktopCli();

    before(async () => {

        service = await desktopService();
        ann = await service.member();
        ben = await service.member();
        carol = await service.member();
        const messaging = service.server.app.services.messaging;
        directId = (await startDirectConversation(messaging, actorOf(ann.user), ben.user.id)).conversation.id;
        groupId = (await createGroup(messaging, actorOf(ann.user), 'Cousins', [ben.user.id])).id;
        await sendMessage(messaging, actorOf(ben.user), groupId, { body: 'Welcome to the group' });
    });

    after(() => service.stop());

    /** The one line of a failure on stderr, without a stack trace. */
    const plainError = (stderr: string) => {

        expect(stderr).to.not.match(/\n\s+at /);
        return stderr.trim();
    };

    it('answers a wrong command line with exit code 2, and any command before connect with exit code 4', async () => {

        const unknown = await cli.run(['frob']);
        expect(unknown.code).to.equal(2);
        expect(plainError(unknown.stderr)).to.equal('error: unknown command "frob" (usage: family-records-desktop <command> [options]; family-records-desktop --help lists them)');

        const missing = await cli.run(['history', '--json']);
        expect(missing.code).to.equal(2);
        expect(missing.stdout).to.equal('');
        expect(JSON.parse(missing.stderr)).to.equal({ error: { code: 'usage', message: 'missing <conversation> (usage: family-records-desktop history <conversation> [--limit N])' } });

        const notConnected = await cli.run(['status']);
        expect(notConnected.code).to.equal(4);
        expect(plainError(notConnected.stderr)).to.contain('run `family-records-desktop connect <server-url>` first');

        const help = await cli.run(['send', '--help']);
        expect(help.code).to.equal(0);
        expect(help.stdout).to.startWith('Usage: family-records-desktop send <conversation> <text> [--file PATH]… [--progress]\n');
    });

    it('connects through the browser like `gh auth login`, then status tells whose account and where its keys are', async () => {

        const connected = await connectCli(cli, service.baseUrl, (userCode) => service.approve(userCode, ann.user), ['--device-name', 'Study desktop']);
        expect(connected.code, connected.stderr).to.equal(0);
        expect(connected.stdout).to.equal([
            `! First copy your one-time code: ${connected.userCode}`,
            `Open ${service.baseUrl}/device in your browser (opening it now…)`,
            `✓ Connected to ${service.baseUrl} as ${ann.email} (Desktop family)`,
            ''
        ].join('\n'));
        expect(cli.openedUrls()).to.equal([`${service.baseUrl}/device?user_code=${connected.userCode}`]);
        expect(connected.stderr).to.contain('plain');          // the key file's warning, as the key store words it

        const status = await cli.json(['status']);
        expect(status).to.include({ server_url: service.baseUrl, user_id: ann.user.id, email: ann.email, family_name: 'Desktop family', device_name: 'Study desktop',
            online: true, outbox: 0, open_conflicts: 0 });
        expect(status.key_store.kind).to.equal('file');
        expect(status.last_sync_at).to.be.a.string();
    });

    it('lists the conversations by name, and sends a text with a file (progress on stderr) that the history then shows', async () => {

        const listed = await cli.json<{ conversations: Array<{ id: string; name: string; kind: string }> }>(['conversations']);
        expect(listed.conversations.map(({ id, name }) => ({ id, name }))).to.part.include([{ id: directId, name: ben.email }]);
        expect(listed.conversations.map(({ name }) => name)).to.include('Cousins');

        const photo = Path.join(scratchDirectory(), 'garden.png');
        Fs.writeFileSync(photo, pngBytes(300_000));
        const sent = await cli.run(['send', ben.email, 'The garden in May', '--file', photo, '--progress']);
        expect(sent.code, sent.stderr).to.equal(0);
        expect(sent.stdout).to.match(new RegExp(`^✓ Sent to ${ben.email} \\(msg_\\w+\\)\\n$`));
        expect(sent.stderr).to.contain('uploading garden.png: 100% (300.0 kB of 300.0 kB)');
        expect(await bodiesOnServer(service.server, directId)).to.equal(['The garden in May']);

        const history = await cli.run(['history', 'cous']);
        expect(history.code, history.stderr).to.equal(0);
        expect(history.stdout).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}\S+@\S+: Welcome to the group\n$/);

        const direct = await cli.json<{ messages: Array<{ body: string; attachments: Array<{ file_name: string; size_bytes: number }> }> }>(['history', directId, '--limit', '5']);
        expect(direct.messages).to.have.length(1);
        expect(direct.messages[0].body).to.equal('The garden in May');
        expect(direct.messages[0].attachments).to.part.include([{ file_name: 'garden.png', size_bytes: 300_000 }]);
    });

    it('saves a message\'s files without replacing any, and says why it cannot', async () => {

        const history = await cli.run(['history', directId]);
        const [, messageId] = /\[garden\.png, 300\.0 kB\] \((msg_\w+)\)\n$/.exec(history.stdout) ?? [];
        expect(messageId, history.stdout).to.exist();

        const dir = scratchDirectory();
        const saved = await cli.run(['save', messageId, '--dir', dir]);
        expect(saved.code, saved.stderr).to.equal(0);
        expect(saved.stdout).to.equal(`✓ Saved garden.png (300.0 kB) as ${Path.join(dir, 'garden.png')}\n`);
        const again = await cli.json<{ files: Array<{ upload_id: string; file_name: string; size_bytes: number; path: string }> }>(['save', messageId, '--dir', dir]);
        expect(again.files).to.have.length(1);
        expect(again.files[0]).to.include({ file_name: 'garden.png', size_bytes: 300_000, path: Path.join(dir, 'garden (1).png') });
        expect(again.files[0].upload_id).to.match(/^upl_/);
        expect(Fs.readFileSync(Path.join(dir, 'garden (1).png')).equals(pngBytes(300_000))).to.be.true();
        expect(Fs.readdirSync(dir).sort()).to.equal(['garden (1).png', 'garden.png']);

        const [textOnly] = (await cli.json<{ messages: Array<{ id: string }> }>(['history', 'cous'])).messages;
        const refusals: Array<[string[], number, string]> = [
            [['save', textOnly.id], 1, `message ${textOnly.id} has no files`],
            [['save', messageId, '--dir', Path.join(dir, 'garden.png')], 1, 'is not a directory'],
            [['save', 'msg_00000000000000000000'], 1, '(404 not_found)']
        ];
        for (const [argv, code, words] of refusals) {
            const refused = await cli.run(argv);
            expect(refused.code, argv.join(' ')).to.equal(code);
            expect(plainError(refused.stderr)).to.contain(words);
        }
    });

    it('lists the people one can message, then starts a direct conversation by email (the same one again), and a group with a title; says why it cannot', async () => {

        const people = await cli.run(['people']);
        expect(people.code, people.stderr).to.equal(0);
        expect(people.stdout.split('\n').filter(Boolean).sort()).to.equal([`${ben.user.id}  ${ben.email}`, `${carol.user.id}  ${carol.email}`].sort());

        const direct = await cli.run(['start', carol.email.toUpperCase()]);
        expect(direct.code, direct.stderr).to.equal(0);
        const [, carolId] = /^✓ Conversation with \S+: (cnv_\w+)\n {2}family-records-desktop send (cnv_\w+) <text>\n$/.exec(direct.stdout) ?? [];
        expect(carolId, direct.stdout).to.exist();
        expect(direct.stdout).to.contain(`with ${carol.email}:`);
        const again = await cli.json<{ conversation: { id: string; kind: string; name: string } }>(['start', carol.email.slice(0, -4)]);
        expect(again.conversation).to.include({ id: carolId, kind: 'direct', name: carol.email });

        const group = await cli.json<{ conversation: { id: string; kind: string; name: string; member_ids: string[] } }>(['start', '--title', ' Garden club ', ben.email, carol.user.id, ben.email]);
        expect(group.conversation).to.include({ kind: 'group', name: 'Garden club' });
        expect(group.conversation.member_ids.sort()).to.equal([ann.user.id, ben.user.id, carol.user.id].sort());
        const sent = await cli.run(['send', 'garden', 'First meeting on Saturday']);
        expect(sent.code, sent.stderr).to.equal(0);
        expect(await bodiesOnServer(service.server, group.conversation.id)).to.equal(['First meeting on Saturday']);

        const refusals: Array<[string[], number, string]> = [
            [['start', ben.email, carol.email], 2, 'a conversation of more than two is a group: give it a --title'],
            [['start', '--title', ' ', ben.email], 2, '--title must not be empty'],
            [['start'], 2, 'missing <person>'],
            [['start', 'nobody@example.com'], 1, 'no one of your family is called "nobody@example.com"'],
            [['start', 'user-'], 1, '"user-" fits '],
            [['start', ann.email], 1, `"${ann.email}" is you`]
        ];
        for (const [argv, code, words] of refusals) {
            const refused = await cli.run(argv);
            expect(refused.code, argv.join(' ')).to.equal(code);
            expect(plainError(refused.stderr)).to.contain(words);
        }
    });

    it('keeps a message written offline in the outbox (exit code 3), and sync sends it once the service answers', async () => {

        await service.goOffline();
        try {
            const queued = await cli.run(['send', ben.email, 'Written on the train']);
            expect(queued.code, queued.stderr).to.equal(3);
            expect(queued.stdout).to.equal('queued: offline, will send when connected\n');

            const outbox = await cli.json<{ items: Array<{ conversation_id: string; body: string; state: string }> }>(['outbox']);
            expect(outbox.items).to.part.include([{ conversation_id: directId, body: 'Written on the train', state: 'queued' }]);
            expect(outbox.items).to.have.length(1);

            const notStarted = await cli.run(['start', '--json', '--title', 'On the train', ben.email]);
            expect(notStarted.code).to.equal(3);
            expect(JSON.parse(notStarted.stderr).error).to.include({ code: 'offline' });
            expect(JSON.parse(notStarted.stderr).error.message).to.contain('Nothing was started');

            expect((await cli.run(['people'])).code).to.equal(3);
            const notSaved = await cli.run(['save', 'msg_00000000000000000000']);
            expect(notSaved.code).to.equal(3);
            expect(plainError(notSaved.stderr)).to.contain('Nothing was saved.');
        }
        finally {
            await service.goOnline();
        }

        const synced = await cli.run(['sync']);
        expect(synced.code, synced.stderr).to.equal(0);
        expect(synced.stdout).to.contain('Outbox: 1 sent, 0 conflicts, 0 waiting');
        expect(await bodiesOnServer(service.server, directId)).to.equal(['The garden in May', 'Written on the train']);
    });

    it('reports a message the service refused as a conflict, lists it, and discards it', async () => {

        await blockUser(service.server.app.services.messaging, actorOf(ben.user), ann.user.id);
        const refused = await cli.run(['send', directId, 'Are you there?']);
        expect(refused.code).to.equal(1);
        const [, conflictId] = /conflict (\S+): family-records-desktop resolve/.exec(refused.stdout) ?? [];
        expect(conflictId, refused.stdout).to.exist();

        const conflicts = await cli.json<{ conflicts: Array<{ id: string; reason: string; item: { body: string } }> }>(['conflicts']);
        expect(conflicts.conflicts).to.part.include([{ id: conflictId, reason: 'blocked', item: { body: 'Are you there?' } }]);

        const discarded = await cli.run(['resolve', conflictId, '--discard']);
        expect(discarded.code, discarded.stderr).to.equal(0);
        expect(discarded.stdout).to.equal(`✓ ${conflictId}: discarded: it will not be sent\n`);
    });

    it('prints each change live with watch --json, until Ctrl-C', async () => {

        const watching = cli.spawn(['watch', '--json']);
        await waitForOutput(watching, /connected: following changes/);
        await sendMessage(service.server.app.services.messaging, actorOf(ann.user), groupId, { body: 'Seen live' });
        const [line] = await waitForOutput(watching, /\{[^\n]*"Seen live"[^\n]*\}\n/);
        expect(JSON.parse(line)).to.part.include({ kind: 'message', action: 'created', conversation_id: groupId, record: { body: 'Seen live' } });

        const ended = new Promise((resolve) => watching.once('close', resolve));
        watching.kill('SIGINT');
        expect(await ended).to.equal(0);
    });

    it('disconnects: the service revokes the device, and every command then asks to connect again (exit code 4)', async () => {

        const disconnected = await cli.run(['disconnect']);
        expect(disconnected.code, disconnected.stderr).to.equal(0);
        expect(disconnected.stdout).to.contain(`✓ Disconnected ${ann.email} on ${service.baseUrl}: the service revoked this device`);

        const after = await cli.run(['send', directId, 'After disconnecting', '--json']);
        expect(after.code).to.equal(4);
        expect(JSON.parse(after.stderr).error.code).to.equal('not_connected');
    });
});
