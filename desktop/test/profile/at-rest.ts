import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { newCacheKey } from '../../src/profile/cipher';
import { LocalStore } from '../../src/profile/local-store';
import type { ProfileInfo } from '../../src/profile/profiles';
import { openSecretStore } from '../../src/profile/secret-store';
import { profileTokenStorage } from '../../src/profile/token-storage';

import { conflict, conversation, message } from './records';
import { scratchHome, type ScratchHome, walk } from './scratch';

export const lab = Lab.script();
const { after, before, describe, it } = lab;

describe('a profile at rest', () => {

    let scratch: ScratchHome;

    before(async () => {

        scratch = await scratchHome({ FAMILY_RECORDS_DESKTOP_KEY_STORE: 'file' });
    });

    after(() => scratch.restore());

    it('holds none of its messages, files, conflicts or tokens in clear outside the key file: not as UTF-8, UTF-16, base64 or hex', async () => {

        const profile = await scratch.profile();
        const secrets = await openSecretStore(profile);
        const key = newCacheKey();
        await secrets.set('cache-key', key.toString('base64'));
        const store = await LocalStore.open(profile.dir, key);

        const known = (label: string) => `${label} ${Crypto.randomBytes(12).toString('hex')} — crème brûlée`;
        const texts = {
            title: known('Group title'),
            member: `usr_${Crypto.randomBytes(10).toString('hex')}`,
            body: known('Message body'),
            edited: known('Edited body'),
            attachment: known('Attachment name') + '.pdf',
            outboxBody: known('Outbox text'),
            outboxFileName: known('Outbox file name') + '.bin',
            conflictBody: known('Conflict text'),
            cursor: known('Sync cursor'),
            accessToken: `at_${Crypto.randomBytes(24).toString('base64url')}`,
            refreshToken: `rt_${Crypto.randomBytes(24).toString('base64url')}`
        };

        const pattern = Crypto.randomBytes(48);
        const filePath = Path.join(scratch.home, 'pattern.bin');
        await Fs.promises.writeFile(filePath, Buffer.concat(Array.from({ length: 1000 }, () => pattern)));

        try {
            await store.putConversations([conversation('cnv_1', { title: texts.title, member_ids: ['usr_scratch', texts.member] })]);
            await store.putMessages([
                message('msg_1', 'cnv_1', '2025-01-01T10:00:01.000Z', { body: texts.body }),
                message('msg_2', 'cnv_1', '2025-01-01T10:00:02.000Z', { attachments: [{ upload_id: 'upl_1', file_name: texts.attachment, media_type: 'application/pdf', size_bytes: 10 }] })
            ]);
            await store.putMessages([message('msg_1', 'cnv_1', '2025-01-01T10:00:01.000Z', { body: texts.edited, revision: 2 })]);
            await store.enqueue({ conversationId: 'cnv_1', body: texts.outboxBody, files: [{ path: filePath, name: texts.outboxFileName }], clientTime: '2025-01-01T10:00:03.000Z', idempotencyKey: 'key-at-rest' });
            await store.putConflicts([conflict('cfl_1', { item: { idempotency_key: 'key-c', conversation_id: 'cnv_1', client_time: '2025-01-01T10:00:00.000Z', body: texts.conflictBody } })]);
            await store.setState('sync-cursor', texts.cursor);
            await profileTokenStorage(profile, secrets, store).write({ access_token: texts.accessToken, refresh_token: texts.refreshToken, expires_at: Date.now() + 3600_000, scope: 'messages:read messages:write' });

            expect((await profileTokenStorage(profile, secrets, store).read())?.access_token).to.equal(texts.accessToken);
            expect((await store.messages('cnv_1'))[0].body).to.equal(texts.edited);

            const needles = [...Object.entries(texts).map(([label, text]) => ({ label, bytes: Buffer.from(text) })), { label: 'file pattern', bytes: pattern }, { label: 'cache key', bytes: key }];

            // While open (the write-ahead log holds the latest writes), then closed (checkpointed into the database file).
            await expectNoneInClear(profile, needles);
            await store.close();
            await expectNoneInClear(profile, needles);
        }
        finally {
            await store.close().catch(() => undefined);
        }

        const keyFile = await Fs.promises.readFile(Path.join(profile.dir, 'secrets.json'), 'utf8');
        expect(keyFile).to.contain(texts.refreshToken);
        expect(keyFile).to.not.contain(texts.accessToken);
    });
});


async function expectNoneInClear(profile: ProfileInfo, needles: Array<{ label: string; bytes: Buffer }>): Promise<void> {

    const files = (await walk(profile.dir)).filter((entry) => !entry.directory && Path.basename(entry.path) !== 'secrets.json');
    expect(files.map((entry) => Path.relative(profile.dir, entry.path))).to.include(['store.sqlite', 'store.json', 'profile.json', 'tokens.lock']);
    expect(files.some((entry) => entry.path.includes(`${Path.sep}blobs${Path.sep}`))).to.be.true();

    for (const entry of files) {
        const content = await Fs.promises.readFile(entry.path);
        for (const needle of needles) {
            for (const [form, bytes] of forms(needle.bytes)) {
                expect(content.includes(bytes), `${needle.label} as ${form} in ${entry.path}`).to.be.false();
            }
        }
    }
}


/** The ways the bytes could show: as they are, UTF-16, hex, and base64 at each of the three alignments a longer text could give them. */
function forms(bytes: Buffer): Array<[string, Buffer]> {

    const found: Array<[string, Buffer]> = [
        ['bytes', bytes],
        ['utf-16le', Buffer.from(bytes.toString('utf8'), 'utf16le')],
        ['utf-16be', Buffer.from(bytes.toString('utf8'), 'utf16le').swap16()],
        ['hex', Buffer.from(bytes.toString('hex'))],
        ['HEX', Buffer.from(bytes.toString('hex').toUpperCase())]
    ];

    for (let shift = 0; shift < 3; ++shift) {
        const whole = bytes.subarray(shift, shift + 3 * Math.floor((bytes.length - shift) / 3));
        found.push([`base64 (+${shift})`, Buffer.from(whole.toString('base64'))], [`base64url (+${shift})`, Buffer.from(whole.toString('base64url'))]);
    }

    return found;
}
