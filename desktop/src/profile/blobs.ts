import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import { SealedRecords } from './sealed-records';
import { ensurePrivateDir, privateFileMode, syncDirectory } from './private-files';

/*
 * The outbox's files, each sealed whole into <profileDir>/blobs/<id> (0600), written and synced before the row that
 * names it commits. A blob's id starts with the id of the process that wrote it: a blob no row names is removed once
 * that process is gone (it crashed between the blob and the row), never while it may still be about to commit.
 */

const idPattern = /^(\d+)-[0-9a-f]{24}$/;


export class BlobFiles {

    constructor(readonly dir: string, private readonly records: SealedRecords) { }

    static async open(profileDir: string, records: SealedRecords): Promise<BlobFiles> {

        const dir = Path.join(profileDir, 'blobs');
        await ensurePrivateDir(dir);
        return new BlobFiles(dir, records);
    }

    /** Seals the bytes into a new blob, durable (file and directory entry synced) when this resolves. */
    async write(bytes: Buffer): Promise<string> {

        const id = `${process.pid}-${Crypto.randomBytes(12).toString('hex')}`;
        const handle = await Fs.promises.open(this.path(id), 'wx', privateFileMode);
        try {
            await handle.writeFile(this.records.sealBytes('blobs', id, bytes));
            await handle.sync();
        }
        finally {
            await handle.close();
        }

        await syncDirectory(this.dir);
        return id;
    }

    async read(id: string): Promise<Buffer> {

        return this.records.openBytes('blobs', id, await Fs.promises.readFile(this.path(id)));
    }

    async remove(ids: string[]): Promise<void> {

        for (const id of ids) {
            await Fs.promises.rm(this.path(id), { force: true });
        }
    }

    /** Removes the blobs no row names whose writer is no longer running (and anything else found in the directory). */
    async sweep(named: Set<string>): Promise<string[]> {

        const removed: string[] = [];
        for (const entry of await Fs.promises.readdir(this.dir)) {
            const writer = idPattern.exec(entry)?.[1];
            if (!named.has(entry) && (writer === undefined || !isRunning(Number(writer)))) {
                await Fs.promises.rm(Path.join(this.dir, entry), { recursive: true, force: true });
                removed.push(entry);
            }
        }

        return removed;
    }

    private path(id: string): string {

        if (!idPattern.test(id)) {
            throw new Error(`Invalid blob id ${JSON.stringify(id)}`);
        }

        return Path.join(this.dir, id);
    }
}


function isRunning(pid: number): boolean {

    try {
        process.kill(pid, 0);
        return true;
    }
    catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
}
