import Fs from 'fs';
import Path from 'path';

import type { RedisClient } from '../lib/redis';

/**
 * A counter that moves whenever something that decides authentication changes
 * (a key revoked or rescoped, a family suspended, its plan or API access changed).
 * Cached key verifications remember the epoch they were loaded under and are
 * reloaded as soon as it moves, so a revocation takes effect on the very next
 * request without a database round-trip on every request.
 */
export interface AuthEpoch {
    current(): Promise<string>;
    bump(): Promise<void>;
}

/**
 * Across instances: one Redis key, read on every request (one round-trip,
 * no database) and incremented by whichever instance or CLI made the change.
 */
export class RedisAuthEpoch implements AuthEpoch {
    private readonly key: string;

    constructor(private readonly client: RedisClient, prefix: string) {

        this.key = `${prefix}auth:epoch`;
    }

    async current(): Promise<string> {

        return (await this.client.get(this.key)) ?? '0';
    }

    async bump(): Promise<void> {

        await this.client.incr(this.key);
    }
}

/**
 * One machine, no Redis (the embedded default): an in-process counter, plus a
 * marker file so a change made by another process on this machine (the operator
 * CLI) is seen too. Replacing the file gives it a new inode; a stat costs about
 * a microsecond, far less than a query.
 */
export class LocalAuthEpoch implements AuthEpoch {
    private counter = 0;

    constructor(private readonly markerFile: string) {

        Fs.mkdirSync(Path.dirname(markerFile), { recursive: true });
    }

    current(): Promise<string> {

        const stat = Fs.statSync(this.markerFile, { throwIfNoEntry: false });
        return Promise.resolve(`${this.counter}:${stat?.ino ?? 0}:${stat?.mtimeMs ?? 0}`);
    }

    bump(): Promise<void> {

        ++this.counter;
        const temporary = `${this.markerFile}.${process.pid}.tmp`;
        Fs.writeFileSync(temporary, `${Date.now()}\n`);
        Fs.renameSync(temporary, this.markerFile);
        return Promise.resolve();
    }
}
