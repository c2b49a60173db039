import ChildProcess from 'child_process';
import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { newCacheKey } from '../../src/profile/cipher';
import { LocalStore } from '../../src/profile/local-store';
import type { ProfileInfo } from '../../src/profile/profiles';

import { conflict, message } from './records';
import { scratchHome, type ScratchHome } from './scratch';

export const lab = Lab.script();
const { after, before, describe, it } = lab;

const compiledProfile = Path.join(__dirname, '..', '..', 'src', 'profile');

describe('LocalStore outbox', () => {

    const key = newCacheKey();
    let scratch: ScratchHome;
    let profile: ProfileInfo;
    let store: LocalStore;
    let files: string;

    before(async () => {

        scratch = await scratchHome();
        profile = await scratch.profile();
        store = await LocalStore.open(profile.dir, key);
        files = Path.join(scratch.home, 'files');
        await Fs.promises.mkdir(files);
    });

    after(async () => {

        await store.close();
        await scratch.restore();
    });

    const blobNames = () => Fs.promises.readdir(Path.join(profile.dir, 'blobs'));

    it('keeps items in the order they were sent, per conversation and overall', async () => {

        const sent = [];
        for (const [index, conversationId] of ['cnv_a', 'cnv_b', 'cnv_a', 'cnv_a', 'cnv_b'].entries()) {
            sent.push(await store.enqueue({ conversationId, body: `Text ${index}`, files: [], clientTime: `2025-01-01T10:00:0${index}.000Z`, idempotencyKey: `key-order-${index}` }));
        }

        expect(sent[0]).to.equal({ seq: sent[0].seq, conversationId: 'cnv_a', idempotencyKey: 'key-order-0', clientTime: '2025-01-01T10:00:00.000Z', body: 'Text 0', files: [], state: 'queued', attempts: 0 });
        expect((await store.outboxItems('cnv_a')).map((item) => item.body)).to.equal(['Text 0', 'Text 2', 'Text 3']);
        expect((await store.outboxItems()).map((item) => item.idempotencyKey)).to.equal(sent.map((item) => item.idempotencyKey));
        expect((await store.outboxItems('cnv_a'))[1]).to.equal(sent[2]);

        for (const item of sent) {
            await store.completeOutboxItem(item.seq, {});
        }

        expect(await store.outboxItems()).to.equal([]);
    });

    it('seals each file into a private blob, read back whole', async () => {

        const bytes = Crypto.randomBytes(70_000);
        const path = Path.join(files, 'photo.jpg');
        await Fs.promises.writeFile(path, bytes);
        const item = await store.enqueue({ conversationId: 'cnv_a', body: 'With a photo', files: [{ path, type: 'image/jpeg' }, { path, name: 'copy.jpg' }], clientTime: '2025-01-01T10:00:00.000Z', idempotencyKey: 'key-files' });

        expect(item.files.map(({ name, size, type }) => ({ name, size, type }))).to.equal([{ name: 'photo.jpg', size: 70_000, type: 'image/jpeg' }, { name: 'copy.jpg', size: 70_000, type: undefined }]);
        expect(await blobNames()).to.only.include(item.files.map((file) => file.blobId));
        for (const file of item.files) {
            const blob = Path.join(profile.dir, 'blobs', file.blobId);
            expect((await Fs.promises.stat(blob)).mode & 0o777).to.equal(0o600);
            expect((await Fs.promises.readFile(blob)).includes(bytes.subarray(0, 64))).to.be.false();
            expect((await store.readBlob(file.blobId)).equals(bytes)).to.be.true();
        }

        await expect(store.readBlob('../store.sqlite')).to.reject(/Invalid blob id/);
        await store.completeOutboxItem(item.seq, { message: message('msg_sent', 'cnv_a', '2025-01-01T10:00:01.000Z') });
        expect(await blobNames()).to.equal([]);
        expect((await store.messages('cnv_a')).map((sent) => sent.id)).to.equal(['msg_sent']);
    });

    it('refuses a file it cannot read, naming it, and keeps nothing of the item', async () => {

        const readable = Path.join(files, 'fine.txt');
        await Fs.promises.writeFile(readable, 'fine');
        const enqueue = (path: string) => store.enqueue({ conversationId: 'cnv_a', files: [{ path: readable }, { path }], clientTime: '2025-01-01T10:00:00.000Z', idempotencyKey: 'key-refused' });

        await expect(enqueue(Path.join(files, 'missing.txt'))).to.reject(`Cannot attach ${Path.join(files, 'missing.txt')}: no such file`);
        await expect(enqueue(files)).to.reject(`Cannot attach ${files}: it is a directory`);
        if (process.getuid?.() !== 0) {
            const locked = Path.join(files, 'locked.txt');
            await Fs.promises.writeFile(locked, 'secret', { mode: 0o000 });
            await expect(enqueue(locked)).to.reject(`Cannot attach ${locked}: permission denied`);
        }

        await expect(store.enqueue({ conversationId: 'cnv_a', files: [], clientTime: '2025-01-01T10:00:00.000Z', idempotencyKey: 'key-empty' })).to.reject('An outbox item needs a body or a file');
        expect(await store.outboxItems()).to.equal([]);
        expect(await blobNames()).to.equal([]);

        const first = await store.enqueue({ conversationId: 'cnv_a', files: [{ path: readable }], clientTime: '2025-01-01T10:00:00.000Z', idempotencyKey: 'key-twice' });
        await expect(store.enqueue({ conversationId: 'cnv_a', files: [{ path: readable }], clientTime: '2025-01-01T10:00:00.000Z', idempotencyKey: 'key-twice' })).to.reject(/UNIQUE/);
        expect(await blobNames()).to.equal([first.files[0].blobId]);
        await store.completeOutboxItem(first.seq, {});
    });

    it('updates an item: state, attempts, the last error and its files\' upload', async () => {

        const path = Path.join(files, 'report.pdf');
        await Fs.promises.writeFile(path, 'pdf bytes');
        const item = await store.enqueue({ conversationId: 'cnv_a', body: 'Report', files: [{ path }], clientTime: '2025-01-01T10:00:00.000Z', idempotencyKey: 'key-update' });

        const uploading = [{ ...item.files[0], uploadUrl: 'http://127.0.0.1:3000/messaging/v1/uploads/upl_1' }];
        await store.updateOutboxItem(item.seq, { state: 'uploading', files: uploading, attempts: 1, lastError: { code: 'offline', message: 'The service could not be reached' } });
        expect(await store.outboxItems('cnv_a')).to.equal([{ ...item, state: 'uploading', files: uploading, attempts: 1, lastError: { code: 'offline', message: 'The service could not be reached' } }]);

        await store.updateOutboxItem(item.seq, { state: 'sending', lastError: undefined });
        expect((await store.outboxItems())[0]).to.equal({ ...item, state: 'sending', files: uploading, attempts: 1 });
        await expect(store.updateOutboxItem(999_999, { state: 'queued' })).to.reject('No outbox item 999999');

        await store.completeOutboxItem(item.seq, { conflict: conflict('cfl_outbox') });
        expect(await store.outboxItems()).to.equal([]);
        expect(await store.conflict('cfl_outbox')).to.exist();
        expect(await blobNames()).to.equal([]);
    });

    it('keeps an item enqueued by a process killed right after enqueue resolved', async () => {

        const path = Path.join(files, 'durable.bin');
        await Fs.promises.writeFile(path, Buffer.alloc(4096, 0xa5));
        const script = `
            const { LocalStore } = require(${JSON.stringify(Path.join(compiledProfile, 'local-store.js'))});
            (async () => {
                const store = await LocalStore.open(process.env.PROFILE_DIR, Buffer.from(process.env.CACHE_KEY, 'hex'));
                await store.enqueue({ conversationId: 'cnv_crash', body: 'Sent before the crash', files: [{ path: process.env.FILE }], clientTime: '2025-01-01T10:00:00.000Z', idempotencyKey: 'key-crash' });
                process.kill(process.pid, 'SIGKILL');
            })();
        `;

        const signal = await runNode(script, { PROFILE_DIR: profile.dir, CACHE_KEY: key.toString('hex'), FILE: path });
        expect(signal).to.equal('SIGKILL');

        const reopened = await LocalStore.open(profile.dir, key);
        try {
            const [item] = await reopened.outboxItems('cnv_crash');
            expect(item).to.include({ idempotencyKey: 'key-crash', body: 'Sent before the crash', state: 'queued' });
            expect((await reopened.readBlob(item.files[0].blobId)).equals(Buffer.alloc(4096, 0xa5))).to.be.true();
            await reopened.completeOutboxItem(item.seq, {});
        }
        finally {
            await reopened.close();
        }
    });

    it('removes on open a blob whose process died before its item committed, and only that one', async () => {

        const script = `
            const { BlobFiles } = require(${JSON.stringify(Path.join(compiledProfile, 'blobs.js'))});
            const { SealedRecords } = require(${JSON.stringify(Path.join(compiledProfile, 'sealed-records.js'))});
            (async () => {
                const blobs = await BlobFiles.open(process.env.PROFILE_DIR, new SealedRecords(Buffer.from(process.env.CACHE_KEY, 'hex')));
                await blobs.write(Buffer.from('a file whose item never committed'));
                process.kill(process.pid, 'SIGKILL');
            })();
        `;

        expect(await runNode(script, { PROFILE_DIR: profile.dir, CACHE_KEY: key.toString('hex') })).to.equal('SIGKILL');
        const [orphan] = await blobNames();
        expect(orphan).to.exist();

        const path = Path.join(files, 'kept.txt');
        await Fs.promises.writeFile(path, 'kept');
        const kept = await store.enqueue({ conversationId: 'cnv_a', files: [{ path }], clientTime: '2025-01-01T10:00:00.000Z', idempotencyKey: 'key-kept' });
        const reopened = await LocalStore.open(profile.dir, key);
        await reopened.close();
        expect(await blobNames()).to.equal([kept.files[0].blobId]);
        await store.completeOutboxItem(kept.seq, {});
    });
});


/** Runs the script in a new node process: the signal that ended it, or its exit code. */
function runNode(script: string, env: Record<string, string>): Promise<string | number | null> {

    return new Promise((resolve, reject) => {

        const child = ChildProcess.spawn(process.execPath, ['-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
        child.on('error', reject);
        child.on('exit', (code, signal) => resolve(signal ?? code));
    });
}
