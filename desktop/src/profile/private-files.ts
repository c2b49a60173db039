import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

/* Files of a profile are the user's alone: directories 0700, files 0600, whatever the umask. */

export const privateDirMode = 0o700;
export const privateFileMode = 0o600;


/** Creates the directory (and its parents) 0700, or narrows an existing one that others could read. */
export function ensurePrivateDirSync(dir: string): void {

    Fs.mkdirSync(dir, { recursive: true, mode: privateDirMode });
    narrowModeSync(dir, privateDirMode);
}


export async function ensurePrivateDir(dir: string): Promise<void> {

    await Fs.promises.mkdir(dir, { recursive: true, mode: privateDirMode });
    await narrowMode(dir, privateDirMode);
}


/** Removes the group and other bits from a path that has any (mkdir and open apply the umask, not the mode asked for, to an existing path). */
export function narrowModeSync(path: string, mode: number): void {

    if ((Fs.statSync(path).mode & 0o777) !== mode) {
        Fs.chmodSync(path, mode);
    }
}


export async function narrowMode(path: string, mode: number): Promise<void> {

    const stat = await Fs.promises.stat(path);
    if ((stat.mode & 0o777) !== mode) {
        await Fs.promises.chmod(path, mode);
    }
}


/** Creates the file empty with 0600 when missing, and narrows it when it exists: before another library opens it. */
export async function ensurePrivateFile(path: string): Promise<void> {

    const handle = await Fs.promises.open(path, 'a', privateFileMode);
    try {
        await handle.chmod(privateFileMode);
    }
    finally {
        await handle.close();
    }
}


export function ensurePrivateFileSync(path: string): void {

    const descriptor = Fs.openSync(path, 'a', privateFileMode);
    try {
        Fs.fchmodSync(descriptor, privateFileMode);
    }
    finally {
        Fs.closeSync(descriptor);
    }
}


/**
 * Replaces the file's content all at once: a reader (another process of the profile) sees the old content or the new one,
 * never a part, and after a crash the file holds one of them.
 */
export async function writePrivateFile(path: string, content: string | Buffer): Promise<void> {

    const temporary = `${path}.${Crypto.randomBytes(6).toString('hex')}.tmp`;
    const handle = await Fs.promises.open(temporary, 'wx', privateFileMode);
    try {
        await handle.writeFile(content);
        await handle.sync();
    }
    finally {
        await handle.close();
    }

    try {
        await Fs.promises.rename(temporary, path);
    }
    catch (error) {
        await Fs.promises.rm(temporary, { force: true });
        throw error;
    }

    await syncDirectory(Path.dirname(path));
}


/** Makes a directory entry just created or renamed durable. */
export async function syncDirectory(dir: string): Promise<void> {

    const handle = await Fs.promises.open(dir, 'r');
    try {
        await handle.sync();
    }
    finally {
        await handle.close();
    }
}


/** The file's content, or undefined when there is no such file. */
export async function readFileIfExists(path: string): Promise<Buffer | undefined> {

    try {
        return await Fs.promises.readFile(path);
    }
    catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            return undefined;
        }

        throw error;
    }
}
