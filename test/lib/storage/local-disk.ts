import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';
import type { Readable } from 'stream';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { BlobNotFoundError, contentKey, isContentKey } from '../../../lib/storage';
import { LocalDiskStorage } from '../../../lib/storage/local-disk';
import { scratchDirectory } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

async function read(stream: Readable): Promise<Buffer> {

    const chunks: Buffer[] = [];
    for await (const chunk of stream) {
        chunks.push(chunk as Buffer);
    }

    return Buffer.concat(chunks);
}

/** Every file under `directory`, as paths relative to it. */
function filesUnder(directory: string): string[] {

    return (Fs.readdirSync(directory, { recursive: true }) as string[])
        .filter((entry) => Fs.statSync(Path.join(directory, entry)).isFile())
        .map((entry) => entry.split(Path.sep).join('/'));
}

describe('LocalDiskStorage', () => {

    it('stores a file under its SHA-256 and reads it back', async () => {

        const root = scratchDirectory();
        const storage = new LocalDiskStorage(root);
        const data = Crypto.randomBytes(5000);
        const sha256 = Crypto.createHash('sha256').update(data).digest('hex');

        const blob = await storage.put(data);

        expect(blob).to.equal({ key: `${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`, size: 5000, sha256 });
        expect(filesUnder(root)).to.equal([blob.key]);
        expect(await read(await storage.open(blob.key))).to.equal(data);
        expect(await storage.stat(blob.key)).to.equal({ size: 5000 });
    });

    it('reads a range of bytes, both ends included', async () => {

        const storage = new LocalDiskStorage(scratchDirectory());
        const blob = await storage.put(Buffer.from('0123456789'));

        expect((await read(await storage.open(blob.key, { start: 2, end: 5 }))).toString()).to.equal('2345');
        expect((await read(await storage.open(blob.key, { start: 9, end: 9 }))).toString()).to.equal('9');
    });

    it('keeps equal content once, however often and however concurrently it is stored', async () => {

        const root = scratchDirectory();
        const storage = new LocalDiskStorage(root);
        const data = Crypto.randomBytes(200_000);

        const blobs = await Promise.all([storage.put(data), storage.put(data), storage.put(Buffer.from(data))]);
        const again = await storage.put(data);

        expect(new Set([...blobs, again].map((blob) => blob.key)).size).to.equal(1);
        expect(filesUnder(root)).to.equal([again.key]);
        expect(await read(await storage.open(again.key))).to.equal(data);
    });

    it('leaves no temporary file behind', async () => {

        const root = scratchDirectory();
        const storage = new LocalDiskStorage(root);
        await Promise.all([storage.put(Crypto.randomBytes(10)), storage.put(Crypto.randomBytes(300_000))]);

        expect(filesUnder(root).filter((file) => !isContentKey(file))).to.equal([]);
    });

    it('makes a blob visible only once it is complete', async () => {

        const root = scratchDirectory();
        const storage = new LocalDiskStorage(root);
        const data = Crypto.randomBytes(32 * 1024 * 1024);
        const sha256 = Crypto.createHash('sha256').update(data).digest('hex');
        const path = Path.join(root, ...contentKey(sha256).split('/'));

        // Watch the final name while the write is under way: whenever it exists, it is whole.
        let done = false;
        const sizesSeen = new Set<number>();
        const writing = storage.put(data).finally(() => {

            done = true;
        });

        while (!done) {
            const stat = Fs.statSync(path, { throwIfNoEntry: false });
            if (stat) {
                sizesSeen.add(stat.size);
            }

            await new Promise((resolve) => setImmediate(resolve));
        }

        await writing;
        expect([...sizesSeen].filter((size) => size !== data.length)).to.equal([]);
        expect(Fs.statSync(path).size).to.equal(data.length);
    });

    it('never serves a temporary file a crash left behind', async () => {

        const root = scratchDirectory();
        const storage = new LocalDiskStorage(root);
        const data = Crypto.randomBytes(1000);
        const key = contentKey(Crypto.createHash('sha256').update(data).digest('hex'));
        const path = Path.join(root, ...key.split('/'));
        Fs.mkdirSync(Path.dirname(path), { recursive: true });
        Fs.writeFileSync(`${path}.0123456789ab.tmp`, data.subarray(0, 300));      // a write cut short

        expect(await storage.stat(key)).to.be.null();
        await expect(storage.open(key)).to.reject(BlobNotFoundError);
        await expect(storage.open(`${key}.0123456789ab.tmp`)).to.reject(/Not a storage key/);

        await storage.put(data);
        expect(await read(await storage.open(key))).to.equal(data);
    });

    it('refuses keys that are not content keys, such as paths out of its directory', async () => {

        const storage = new LocalDiskStorage(scratchDirectory());
        for (const key of ['../../etc/passwd', '/etc/passwd', 'ab/cd/ef', `ab/cd/${'0'.repeat(64)}`, `${'a'.repeat(64)}`]) {
            await expect(storage.open(key)).to.reject(/Not a storage key/);
            await expect(storage.stat(key)).to.reject(/Not a storage key/);
            await expect(storage.remove(key)).to.reject(/Not a storage key/);
        }
    });

    it('removes a blob; removing a missing one is not an error', async () => {

        const storage = new LocalDiskStorage(scratchDirectory());
        const blob = await storage.put(Crypto.randomBytes(100));

        await storage.remove(blob.key);
        await storage.remove(blob.key);

        expect(await storage.stat(blob.key)).to.be.null();
        await expect(storage.open(blob.key)).to.reject(BlobNotFoundError);
    });

    describe('list()', () => {

        /** Every listed blob, by key. */
        async function listed(storage: LocalDiskStorage): Promise<Map<string, Date>> {

            const blobs = new Map<string, Date>();
            for await (const blob of storage.list()) {
                blobs.set(blob.key, blob.modifiedAt);
            }

            return blobs;
        }

        it('lists every stored blob with the time its content was written', async () => {

            const root = scratchDirectory();
            const storage = new LocalDiskStorage(root);
            const blobs = await Promise.all([storage.put(Crypto.randomBytes(10)), storage.put(Crypto.randomBytes(2000)), storage.put(Crypto.randomBytes(1))]);
            const lastWeek = new Date(Date.now() - 7 * 24 * 3600 * 1000);
            Fs.utimesSync(Path.join(root, ...blobs[0].key.split('/')), lastWeek, lastWeek);

            const found = await listed(storage);

            expect([...found.keys()].sort()).to.equal(blobs.map((blob) => blob.key).sort());
            expect(found.get(blobs[0].key)!.getTime()).to.equal(lastWeek.getTime());
            expect(Date.now() - found.get(blobs[1].key)!.getTime()).to.be.within(0, 60_000);
        });

        it('keeps a blob\'s time when the same content is stored again', async () => {

            const root = scratchDirectory();
            const storage = new LocalDiskStorage(root);
            const data = Crypto.randomBytes(100);
            const { key } = await storage.put(data);
            const lastWeek = new Date(Date.now() - 7 * 24 * 3600 * 1000);
            Fs.utimesSync(Path.join(root, ...key.split('/')), lastWeek, lastWeek);

            await storage.put(data);

            expect((await listed(storage)).get(key)!.getTime()).to.equal(lastWeek.getTime());
        });

        it('lists nothing before anything is stored, and nothing once all is removed', async () => {

            const root = Path.join(scratchDirectory(), 'not-yet');
            const storage = new LocalDiskStorage(root);
            expect((await listed(storage)).size).to.equal(0);

            const blob = await storage.put(Crypto.randomBytes(10));
            await storage.remove(blob.key);
            expect((await listed(storage)).size).to.equal(0);
        });

        it('never lists the temporary file of a write under way or cut short, nor anything else that is not a key', async () => {

            const root = scratchDirectory();
            const storage = new LocalDiskStorage(root);
            const whole = await storage.put(Crypto.randomBytes(10));
            const cutShort = contentKey(Crypto.createHash('sha256').update('never finished').digest('hex'));
            const path = Path.join(root, ...cutShort.split('/'));
            Fs.mkdirSync(Path.dirname(path), { recursive: true });
            Fs.writeFileSync(`${path}.0123456789ab.tmp`, 'never fin');
            Fs.writeFileSync(Path.join(root, 'notes.txt'), 'not a blob');
            Fs.mkdirSync(Path.join(root, 'zz', 'zz'), { recursive: true });
            Fs.writeFileSync(Path.join(root, 'zz', 'zz', 'a'.repeat(64)), 'not under its own prefix');
            const [first, second, name] = whole.key.split('/');
            Fs.mkdirSync(Path.join(root, first, second, `${name.slice(0, 4)}${'b'.repeat(60)}`));     // a directory named like a blob

            expect([...(await listed(storage)).keys()]).to.equal([whole.key]);

            // And while writes are under way (their temporary files beside the final names): only whole blobs.
            const size = 4 * 1024 * 1024;
            let done = false;
            const writing = Promise.all(Array.from({ length: 8 }, () => storage.put(Crypto.randomBytes(size)))).finally(() => {

                done = true;
            });
            while (!done) {
                for (const key of (await listed(storage)).keys()) {
                    expect(key === whole.key || Fs.statSync(Path.join(root, ...key.split('/'))).size === size).to.be.true();
                }
            }

            const written = await writing;
            expect([...(await listed(storage)).keys()].sort()).to.equal([whole.key, ...written.map((blob) => blob.key)].sort());
            expect(filesUnder(root).filter((file) => file.endsWith('.tmp'))).to.equal([`${cutShort}.0123456789ab.tmp`]);
        });
    });

    describe('removeIncompleteWrites()', () => {

        const hourAgo = () => new Date(Date.now() - 3600 * 1000);

        /** A temporary file as a write cut short leaves it, last written `at`; its name as the storage reports it. */
        function cutShortWrite(root: string, content: string, at: Date): string {

            const name = `${contentKey(Crypto.createHash('sha256').update(content).digest('hex'))}.0123456789ab.tmp`;
            const path = Path.join(root, ...name.split('/'));
            Fs.mkdirSync(Path.dirname(path), { recursive: true });
            Fs.writeFileSync(path, content.slice(0, 3));
            Fs.utimesSync(path, at, at);
            return name;
        }

        it('removes the temporary files of writes cut short before the given time, and says which', async () => {

            const root = scratchDirectory();
            const storage = new LocalDiskStorage(root);
            const stale = cutShortWrite(root, 'stale', new Date(Date.now() - 2 * 3600 * 1000));
            const recent = cutShortWrite(root, 'recent', new Date(Date.now() - 60_000));

            expect(await storage.removeIncompleteWrites(hourAgo())).to.equal([stale]);

            expect(filesUnder(root)).to.equal([recent]);
            expect(await storage.removeIncompleteWrites(hourAgo())).to.equal([]);
        });

        it('leaves blobs, and files it did not write, however old', async () => {

            const root = scratchDirectory();
            const storage = new LocalDiskStorage(root);
            const longAgo = new Date(Date.now() - 30 * 24 * 3600 * 1000);
            const blob = await storage.put(Crypto.randomBytes(10));
            const [first, second, name] = blob.key.split('/');
            const strangers = [`${blob.key}.tmp`, `${first}/${second}/${name}.0123456789ab.tmp.bak`, `${first}/${second}/${name.slice(0, 8)}.0123456789ab.tmp`, `${first}/${second}/notes.tmp`, 'ab.0123456789ab.tmp'];
            for (const stranger of [blob.key, ...strangers]) {
                const path = Path.join(root, ...stranger.split('/'));
                if (!Fs.existsSync(path)) {
                    Fs.writeFileSync(path, 'x');
                }

                Fs.utimesSync(path, longAgo, longAgo);
            }

            expect(await storage.removeIncompleteWrites(new Date())).to.equal([]);
            expect(filesUnder(root).sort()).to.equal([blob.key, ...strangers].sort());
        });

        it('finds nothing to remove in a store not yet written to', async () => {

            expect(await new LocalDiskStorage(Path.join(scratchDirectory(), 'not-yet')).removeIncompleteWrites(new Date())).to.equal([]);
        });
    });
});
