import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';
import type { Readable } from 'stream';

import { BlobNotFoundError, contentKey, isContentKey, type ByteRange, type FileStorage, type ListedBlob, type StoredBlob } from '.';

// Family documents are private: only the service's own user reads them.
const FILE_MODE = 0o600;

/**
 * Blobs as files under one directory, named by their SHA-256 (`ab/cd/<sha256>`). A blob is
 * written to a temporary file beside its final name, flushed to disk, then renamed into
 * place: rename is atomic, so after a crash a blob is either whole or absent (at worst a
 * `*.tmp` file is left over, which no key can name, for removeIncompleteWrites()).
 */
export class LocalDiskStorage implements FileStorage {

    constructor(private readonly root: string) {}

    async put(data: Buffer): Promise<StoredBlob> {

        const sha256 = Crypto.createHash('sha256').update(data).digest('hex');
        const blob = { key: contentKey(sha256), size: data.length, sha256 };
        if ((await this.stat(blob.key))?.size === data.length) {
            return blob;
        }

        const path = this.pathOf(blob.key);
        const directory = Path.dirname(path);
        await Fs.promises.mkdir(directory, { recursive: true });
        const temporary = temporaryPath(path);
        try {
            const file = await Fs.promises.open(temporary, 'wx', FILE_MODE);
            try {
                await file.writeFile(data);
                await file.sync();
            }
            finally {
                await file.close();
            }

            await Fs.promises.rename(temporary, path);
        }
        catch (error) {
            await Fs.promises.rm(temporary, { force: true });
            throw error;
        }

        await syncDirectory(directory);
        return blob;
    }

    async open(key: string, range?: ByteRange): Promise<Readable> {

        let file: Fs.promises.FileHandle;
        try {
            file = await Fs.promises.open(this.pathOf(key), 'r');
        }
        catch (error) {
            throw isMissing(error) ? new BlobNotFoundError(key) : error;
        }

        // Opened first, so a missing blob is a rejection here rather than an error event mid-response.
        return file.createReadStream(range ? { start: range.start, end: range.end } : {});
    }

    async stat(key: string): Promise<{ size: number } | null> {

        const stat = await statIfPresent(this.pathOf(key));
        return stat && { size: stat.size };
    }

    async remove(key: string): Promise<void> {

        await Fs.promises.rm(this.pathOf(key), { force: true });
    }

    async *list(): AsyncIterable<ListedBlob> {

        for await (const file of this.files()) {
            // A write under way, or cut short, is a temporary file beside its key: never a blob.
            if (isContentKey(file.name)) {
                // Null when removed since the directory was read.
                const stat = await statIfPresent(file.path);
                if (stat) {
                    yield { key: file.name, modifiedAt: stat.mtime };
                }
            }
        }
    }

    async removeIncompleteWrites(before: Date): Promise<string[]> {

        const removed: string[] = [];
        for await (const file of this.files()) {
            if (isTemporaryName(Path.basename(file.name))) {
                const stat = await statIfPresent(file.path);
                if (stat && stat.mtime < before) {
                    await Fs.promises.rm(file.path, { force: true });
                    removed.push(file.name);
                }
            }
        }

        return removed;
    }

    /** Every file of the `ab/cd/` directories, blob or temporary, named as a key is (`ab/cd/<name>`). */
    private async *files(): AsyncIterable<{ name: string; path: string }> {

        for (const first of await fanOutDirectories(this.root)) {
            for (const second of await fanOutDirectories(Path.join(this.root, first))) {
                const directory = Path.join(this.root, first, second);
                for (const entry of await entriesOf(directory)) {
                    if (entry.isFile()) {
                        yield { name: `${first}/${second}/${entry.name}`, path: Path.join(directory, entry.name) };
                    }
                }
            }
        }
    }

    private pathOf(key: string): string {

        if (!isContentKey(key)) {
            throw new Error(`Not a storage key: ${JSON.stringify(key)}`);
        }

        return Path.join(this.root, ...key.split('/'));
    }
}

/** Where a blob is written before it is renamed to `path`: beside it, under a name no key can take. */
const temporaryPath = (path: string) => `${path}.${Crypto.randomBytes(6).toString('hex')}.tmp`;
const isTemporaryName = (name: string) => /^[0-9a-f]{64}\.[0-9a-f]{12}\.tmp$/.test(name);

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** What `work` gives, or `absent` when the path it reads is not there (not yet written, or removed meanwhile). */
async function unlessMissing<T, A>(work: Promise<T>, absent: A): Promise<T | A> {

    try {
        return await work;
    }
    catch (error) {
        if (isMissing(error)) {
            return absent;
        }

        throw error;
    }
}

const statIfPresent = (path: string) => unlessMissing(Fs.promises.stat(path), null);

/** The entries of a directory; none when it is not there. */
const entriesOf = (directory: string) => unlessMissing(Fs.promises.readdir(directory, { withFileTypes: true }), []);

/** The `ab` directories contentKey() fans out into, by name. */
async function fanOutDirectories(directory: string): Promise<string[]> {

    return (await entriesOf(directory)).filter((entry) => entry.isDirectory() && /^[0-9a-f]{2}$/.test(entry.name)).map((entry) => entry.name);
}

/** Makes the rename itself durable: without it a power cut could forget the new name. */
async function syncDirectory(directory: string): Promise<void> {

    const handle = await Fs.promises.open(directory, 'r');
    try {
        await handle.sync();
    }
    finally {
        await handle.close();
    }
}
