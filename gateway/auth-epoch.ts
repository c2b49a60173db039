import { EventEmitter } from 'events';
import Fs from 'fs';
import Path from 'path';

import type { Log } from '../lib/logger';
import type { RedisClient } from '../lib/redis';
import { RedisChannel } from '../lib/redis-channel';

/**
 * A counter that moves whenever something that decides authentication changes
 * (a key revoked or rescoped, a family suspended, its plan or API access changed).
 * Cached key verifications remember the epoch they were loaded under and are
 * reloaded as soon as it moves, so a revocation takes effect on the very next
 * request without a database round-trip on every request. Long-lived requests
 * (the change stream) subscribe, and check their key again when it moves.
 */
export interface AuthEpoch {
    current(): Promise<string>;
    bump(): Promise<void>;
    /**
     * Calls `listener` soon after the epoch moves, whoever moved it (this process,
     * another instance, the CLI). Resolves once listening, with the function that stops it.
     */
    subscribe(listener: () => void): Promise<() => void>;
    /** Stops listening for good (at server stop). */
    close(): Promise<void>;
}

const MOVED = 'moved';

/**
 * Across instances: one Redis key, read on every request (one round-trip,
 * no database) and incremented by whichever instance or CLI made the change,
 * which then announces it on a pub/sub channel.
 */
export class RedisAuthEpoch implements AuthEpoch {
    private readonly key: string;
    private readonly moves = new EventEmitter();
    private readonly channel: RedisChannel;

    constructor(private readonly client: RedisClient, prefix: string, log: Log) {

        this.key = `${prefix}auth:epoch`;
        const moved = () => this.moves.emit(MOVED);
        // After a lost connection a move may have gone unheard: listeners check again.
        this.channel = new RedisChannel(client, `${prefix}auth:epoch`, log, { message: moved, reconnected: moved });
    }

    async current(): Promise<string> {

        return (await this.client.get(this.key)) ?? '0';
    }

    async bump(): Promise<void> {

        const epoch = await this.client.incr(this.key);
        await this.channel.publish(String(epoch));
    }

    async subscribe(listener: () => void): Promise<() => void> {

        await this.channel.listen();
        this.moves.on(MOVED, listener);
        return () => this.moves.off(MOVED, listener);
    }

    close(): Promise<void> {

        return this.channel.close();
    }
}

// How often a subscribed LocalAuthEpoch looks at the marker file: well within the second a revocation may take.
const MARKER_POLL_MS = 250;

/**
 * One machine, no Redis (the embedded default): an in-process counter, plus a
 * marker file so a change made by another process on this machine (the operator
 * CLI) is seen too. Replacing the file gives it a new inode. Every request looks
 * at it (a stat: no query, and the CLI's change counts on the very next request;
 * remembering it even for milliseconds let a request through after a revocation).
 * Subscribers hear this process's bumps at
 * once and other processes' within MARKER_POLL_MS: while anyone listens, the epoch is
 * compared with the last one announced (fs.watch would lose track of a replaced file,
 * and fs.watchFile misses a change made before its first stat).
 */
export class LocalAuthEpoch implements AuthEpoch {
    private counter = 0;
    private readonly moves = new EventEmitter();
    private lastAnnounced = '';
    private poll?: NodeJS.Timeout;

    constructor(private readonly markerFile: string) {

        Fs.mkdirSync(Path.dirname(markerFile), { recursive: true });
    }

    current(): Promise<string> {

        return Promise.resolve(this.epoch());
    }

    bump(): Promise<void> {

        ++this.counter;
        const temporary = `${this.markerFile}.${process.pid}.tmp`;
        Fs.writeFileSync(temporary, `${Date.now()}\n`);
        Fs.renameSync(temporary, this.markerFile);
        this.announceIfMoved();
        return Promise.resolve();
    }

    subscribe(listener: () => void): Promise<() => void> {

        if (this.moves.listenerCount(MOVED) === 0) {
            this.lastAnnounced = this.epoch();
            this.poll = setInterval(this.announceIfMoved, MARKER_POLL_MS);
            this.poll.unref();
        }

        this.moves.on(MOVED, listener);
        return Promise.resolve(() => {

            this.moves.off(MOVED, listener);
            if (this.moves.listenerCount(MOVED) === 0) {
                clearInterval(this.poll);
            }
        });
    }

    close(): Promise<void> {

        this.moves.removeAllListeners(MOVED);
        clearInterval(this.poll);
        return Promise.resolve();
    }

    private epoch(): string {

        const stat = Fs.statSync(this.markerFile, { throwIfNoEntry: false });
        return `${this.counter}:${stat?.ino ?? 0}:${stat?.mtimeMs ?? 0}`;
    }

    // This process's own bump is seen twice (directly, then by the poll): announced once.
    private readonly announceIfMoved = (): void => {

        const epoch = this.epoch();
        if (epoch !== this.lastAnnounced) {
            this.lastAnnounced = epoch;
            this.moves.emit(MOVED);
        }
    };
}
