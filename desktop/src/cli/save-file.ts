import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import { safeFileName } from '../file-name';

/** Puts the file written aside at `path`, failing with EEXIST rather than replace a file that is there. */
async function placeWithoutReplacing(aside: string, path: string): Promise<void> {

    try {
        await Fs.promises.link(aside, path);
    }
    catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
            throw error;
        }

        // A file system without hard links (FAT, some network shares): a copy, which still refuses to replace.
        await Fs.promises.copyFile(aside, path, Fs.constants.COPYFILE_EXCL);
    }
}

/**
 * Writes `bytes` into `dir` as `name`, or else the first free one of `name (1).ext`, `name (2).ext`…, whole or not at
 * all (written aside first). Resolves the path written.
 */
export async function saveWithoutOverwriting(dir: string, name: string, bytes: Buffer): Promise<string> {

    const safe = safeFileName(name);
    const extension = Path.extname(safe);
    const stem = safe.slice(0, safe.length - extension.length);
    const aside = Path.join(dir, `.${Crypto.randomBytes(6).toString('hex')}.part`);
    await Fs.promises.writeFile(aside, bytes, { flag: 'wx' });
    try {
        for (let copy = 0; ; ++copy) {
            const path = Path.join(dir, copy === 0 ? safe : `${stem} (${copy})${extension}`);
            try {
                await placeWithoutReplacing(aside, path);
                return path;
            }
            catch (error) {
                if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
                    throw error;
                }
            }
        }
    }
    finally {
        await Fs.promises.rm(aside, { force: true });
    }
}
