import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { newCacheKey } from '../../src/profile/cipher';
import { LocalStore } from '../../src/profile/local-store';
import type { ProfileInfo } from '../../src/profile/profiles';

import { conflict, conversation, message } from './records';
import { scratchHome, type ScratchHome, walk } from './scratch';

export const lab = Lab.script();
const { after, before, describe, it } = lab;

describe('LocalStore', () => {

    const key = newCacheKey();
    let scratch: ScratchHome;
    let profile: ProfileInfo;
    let store: LocalStore;

    before(async () => {

        scratch = await scratchHome();
        profile = await scratch.profile();
        store = await LocalStore.open(profile.dir, key);
    });

    after(async () => {

        await store.close();
        await scratch.restore();
    });

    it('keeps named state values of any JSON shape', async () => {

        expect(await store.getState('sync-cursor')).to.be.undefined();
        await store.setState('sync-cursor', 'cur_1');
        await store.setState('settings', { nested: [1, 'two', null], flag: true });
        await store.setState('sync-cursor', 'cur_2');
        expect(await store.getState<string>('sync-cursor')).to.equal('cur_2');
        expect(await store.getState('settings')).to.equal({ nested: [1, 'two', null], flag: true });
        await store.deleteState('sync-cursor');
        expect(await store.getState('sync-cursor')).to.be.undefined();
    });

    it('keeps conversations, most recently active first, never replacing one with an older revision', async () => {

        await store.putConversations([
            conversation('cnv_quiet'),
            conversation('cnv_busy', { last_message_at: '2025-03-01T10:00:00.000Z' }),
            conversation('cnv_new', { created_at: '2025-02-01T10:00:00.000Z' })
        ]);

        expect((await store.conversations()).map((item) => item.id)).to.equal(['cnv_busy', 'cnv_new', 'cnv_quiet']);
        await store.putConversations([conversation('cnv_quiet', { revision: 3, title: 'Renamed', unread_count: 2 })]);
        await store.putConversations([conversation('cnv_quiet', { revision: 2, title: 'Stale' })]);
        expect(await store.conversation('cnv_quiet')).to.equal(conversation('cnv_quiet', { revision: 3, title: 'Renamed', unread_count: 2 }));
        expect(await store.conversation('cnv_none')).to.be.undefined();
    });

    it('keeps messages by conversation, the latest first cut then oldest first, and the higher revision of each', async () => {

        await store.putMessages([
            message('msg_3', 'cnv_busy', '2025-03-01T10:00:03.000Z'),
            message('msg_1', 'cnv_busy', '2025-03-01T10:00:01.000Z'),
            message('msg_2', 'cnv_busy', '2025-03-01T10:00:02.000Z'),
            message('msg_x', 'cnv_quiet', '2025-03-01T10:00:00.000Z')
        ]);

        expect((await store.messages('cnv_busy')).map((item) => item.id)).to.equal(['msg_1', 'msg_2', 'msg_3']);
        expect((await store.messages('cnv_busy', { limit: 2 })).map((item) => item.id)).to.equal(['msg_2', 'msg_3']);

        await store.putMessages([message('msg_2', 'cnv_busy', '2025-03-01T10:00:02.000Z', { revision: 3, body: null, deleted: true })]);
        await store.putMessages([message('msg_2', 'cnv_busy', '2025-03-01T10:00:02.000Z', { revision: 2, body: 'Edited' })]);
        expect((await store.messages('cnv_busy'))[1]).to.equal(message('msg_2', 'cnv_busy', '2025-03-01T10:00:02.000Z', { revision: 3, body: null, deleted: true }));

        await store.removeConversation('cnv_busy');
        expect(await store.conversation('cnv_busy')).to.be.undefined();
        expect(await store.messages('cnv_busy')).to.equal([]);
        expect(await store.messages('cnv_quiet')).to.have.length(1);
    });

    it('keeps conflicts: the open ones by default, all when asked', async () => {

        await store.putConflicts([
            conflict('cfl_2', { created_at: '2025-01-02T10:00:00.000Z' }),
            conflict('cfl_1'),
            conflict('cfl_3', { created_at: '2025-01-03T10:00:00.000Z', status: 'resolved', resolution: 'discarded', revision: 2 })
        ]);

        expect((await store.conflicts()).map((item) => item.id)).to.equal(['cfl_1', 'cfl_2']);
        expect((await store.conflicts({ status: 'all' })).map((item) => item.id)).to.equal(['cfl_1', 'cfl_2', 'cfl_3']);
        await store.putConflicts([conflict('cfl_1', { status: 'resolved', resolution: 'retried', revision: 2 })]);
        expect((await store.conflicts()).map((item) => item.id)).to.equal(['cfl_2']);
        expect(await store.conflict('cfl_1')).to.equal(conflict('cfl_1', { status: 'resolved', resolution: 'retried', revision: 2 }));
    });

    it('refuses to open with another key, and writes nothing then', async () => {

        await expect(LocalStore.open(profile.dir, newCacheKey())).to.reject(/The cache key of this profile does not open its local store/);
        expect(await store.getState('settings')).to.exist();
    });

    it('is shared by two connections of the profile (another process): writes of one are read by the other', async () => {

        const other = await LocalStore.open(profile.dir, key);
        try {
            await Promise.all([
                other.putMessages([message('msg_other', 'cnv_shared', '2025-04-01T10:00:00.000Z')]),
                store.putMessages([message('msg_mine', 'cnv_shared', '2025-04-01T10:00:01.000Z')])
            ]);

            expect((await store.messages('cnv_shared')).map((item) => item.id)).to.equal(['msg_other', 'msg_mine']);
        }
        finally {
            await other.close();
        }
    });

    it('keeps every file and directory of the profile private: 0700 / 0600, the write-ahead log and shared memory files too', async () => {

        const files = await walk(profile.dir);
        const names = files.map((entry) => Path.basename(entry.path));
        expect(names).to.include(['store.sqlite', 'store.sqlite-wal', 'store.sqlite-shm', 'blobs']);
        for (const entry of files) {
            expect(entry.mode, entry.path).to.equal(entry.directory ? 0o700 : 0o600);
        }

        const db = Path.join(profile.dir, 'store.sqlite');
        const journal = await Fs.promises.readFile(db + '-wal');
        expect(journal.length).to.be.above(0);
    });

    it('wipes its database and blobs', async () => {

        const scratchProfile = await scratch.profile('usr_wiped');
        const wiped = await LocalStore.open(scratchProfile.dir, key);
        await wiped.setState('sync-cursor', 'cur_1');
        await wiped.wipe();
        expect((await Fs.promises.readdir(scratchProfile.dir)).sort()).to.equal(['profile.json']);
    });
});
