import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import { recordIdPattern } from '../ids';

// Family files are private: only the service's own user reads them.
const FILE_MODE = 0o600;

/** What an append wrote: how many bytes, their SHA-256, and the source's error when it broke off (a cut connection). */
export interface Appended {
    written: number;
    sha256: Buffer;
    error?: unknown;
}

/**
 * The bytes of resumable uploads (message attachments), one file per upload, written in pieces as
 * they arrive: unlike the content-addressed FileStorage, which takes a whole file at once. Shared by
 * every instance as FileStorage is (FILES_DIR); who may write an upload when is the locker's business.
 */
export interface UploadFiles {
    /** An empty file for the upload. */
    create(id: string): Promise<void>;
    /** Writes `source` from `offset` on (what lay beyond it is dropped first), flushed to disk, until it ends or breaks off. */
    append(id: string, offset: number, source: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<Appended>;
    /** Cuts the file to `length` bytes: an append that must not count. */
    truncate(id: string, length: number): Promise<void>;
    /** The whole file. */
    read(id: string): Promise<Buffer>;
    /** Removes the file; removing one that is not there is not an error. */
    remove(id: string): Promise<void>;
}

const uploadId = recordIdPattern('upl');

/** Upload files under `<root>/uploads/`, outside the content-addressed fan-out directories that FileStorage lists and sweeps. */
export class LocalDiskUploadFiles implements UploadFiles {

    private readonly directory: string;

    constructor(root: string) {

        this.directory = Path.join(root, 'uploads');
    }

    async create(id: string): Promise<void> {

        await Fs.promises.mkdir(this.directory, { recursive: true });
        const file = await Fs.promises.open(this.pathOf(id), 'wx', FILE_MODE);
        await file.close();
    }

    async append(id: string, offset: number, source: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<Appended> {

        const file = await Fs.promises.open(this.pathOf(id), 'r+');
        const hash = Crypto.createHash('sha256');
        let written = 0;
        let error: unknown;
        try {
            await file.truncate(offset);
            try {
                for await (const chunk of source) {
                    await file.write(chunk, 0, chunk.length, offset + written);
                    hash.update(chunk);
                    written += chunk.length;
                }
            }
            catch (broken) {
                error = broken;
            }

            await file.sync();
        }
        finally {
            await file.close();
        }

        return { written, sha256: hash.digest(), error };
    }

    async truncate(id: string, length: number): Promise<void> {

        await Fs.promises.truncate(this.pathOf(id), length);
    }

    read(id: string): Promise<Buffer> {

        return Fs.promises.readFile(this.pathOf(id));
    }

    async remove(id: string): Promise<void> {

        await Fs.promises.rm(this.pathOf(id), { force: true });
    }

    private pathOf(id: string): string {

        if (!uploadId.test(id)) {
            throw new Error(`Not an upload id: ${JSON.stringify(id)}`);
        }

        return Path.join(this.directory, id);
    }
}
