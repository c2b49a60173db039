import { EventEmitter } from 'events';

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
    /** Synchronous where no round-trip is needed (the embedded default), so a request waits for nothing. */
    current(): string | Promise<string>;
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
