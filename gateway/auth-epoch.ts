import { EventEmitter } from 'events';

import { ServiceError } from '../lib/errors';
import type { Log } from '../lib/logger';
import type { RedisOutage } from '../lib/redis-outage';
import { answeredInTime, type RedisClient } from '../lib/redis';
import { RedisChannel } from '../lib/redis-channel';
import { keyCacheMaxAgeMinutes } from './key-cache';

/**
 * A counter that moves whenever something that decides authentication changes
 * (a key revoked or rescoped, a family suspended, its plan or API access changed).
 * Cached key verifications remember the epoch they were loaded under and are
 * reloaded as soon as it moves, so a revocation takes effect on the very next
 * request without a database round-trip on every request. Long-lived requests
 * (the change stream) subscribe, and check their key again when it moves.
 */
export interface AuthEpoch {
    /**
     * Synchronous where no round-trip is needed (the embedded default), so a request waits for nothing.
     * Undefined when the epoch cannot be read (Redis does not answer): nothing cached can be trusted then.
     */
    current(): string | undefined | Promise<string | undefined>;
    /** Throws a 503 `service_unavailable` when the move cannot be made: the change itself is saved. */
    bump(): Promise<void>;
    /**
     * Calls `listener` soon after the epoch moves, whoever moved it (this process,
     * another instance, the CLI). Resolves once listening, with the function that stops it.
     */
    subscribe(listener: () => void): Promise<() => void>;
    /** Whether a move made now would reach the subscribers: false while the connection to Redis is down. */
    listening(): boolean;
    /** Stops listening for good (at server stop). */
    close(): Promise<void>;
}

const MOVED = 'moved';

/** A change of access is saved, but the epoch could not move: instances that cached the key or family before may not see it yet. */
export class EpochNotMoved extends ServiceError {
    constructor(readonly reason: string) {

        super('service_unavailable', `The change is saved, but Redis did not answer (${reason}), so instances that can still reach it may go on using what they cached before the change for up to ${keyCacheMaxAgeMinutes} minutes. Make the change again once Redis answers.`, 503);
    }
}

/**
 * Across instances: one Redis key, read on every request (one round-trip,
 * no database) and incremented by whichever instance or CLI made the change,
 * which then announces it on a pub/sub channel.
 *
 * When Redis does not answer, `current()` is undefined: the gateway then checks every key against
 * the database and caches nothing. The epoch also holds this process's count of Redis's interruptions
 * (outages and new connections, `RedisOutage`), so what was cached before an outage is loaded again after
 * it: a change made meanwhile may not have reached Redis's counter, and a Redis restarted without its data
 * counts from 0 again.
 */
export class RedisAuthEpoch implements AuthEpoch {
    private readonly key: string;
    private readonly moves = new EventEmitter();
    private readonly channel: RedisChannel;

    constructor(private readonly client: RedisClient, prefix: string, private readonly log: Log, private readonly outage: RedisOutage) {

        this.key = `${prefix}auth:epoch`;
        const moved = () => this.moves.emit(MOVED);
        // After a lost connection a move may have gone unheard: listeners check again.
        this.channel = new RedisChannel(client, `${prefix}auth:epoch`, log, { message: moved, reconnected: moved });
        // Connected again after an outage: a change made meanwhile (by the CLI, say) could not move the epoch. Moving it now
        // makes every instance load again what it cached, those that never lost Redis included.
        client.on('ready', () => void this.bump().catch(() => undefined));
    }

    current(): Promise<string | undefined> | undefined {

        if (this.outage.failing) {
            return undefined;
        }

        return answeredInTime(this.client.get(this.key)).then(
            (epoch) => {

                this.outage.answered();
                return `${this.outage.interruptions}:${epoch ?? '0'}`;
            },
            (error: unknown) => {

                this.outage.failed(error);
                return undefined;
            }
        );
    }

    async bump(): Promise<void> {

        let epoch: number;
        try {
            epoch = await answeredInTime(this.client.incr(this.key));
        }
        catch (error) {
            this.log(['redis', 'error'], `auth epoch not moved after a change of access: ${(error as Error).message}`);
            throw new EpochNotMoved((error as Error).message);
        }

        // Requests see the new epoch already; only long-lived streams wait for the announcement, and they check again when Redis is back.
        await this.channel.publish(String(epoch)).catch((error: Error) => this.log(['redis', 'error'], `auth epoch ${epoch} not announced: ${error.message}`));
    }

    async subscribe(listener: () => void): Promise<() => void> {

        await this.channel.listen();
        this.moves.on(MOVED, listener);
        return () => this.moves.off(MOVED, listener);
    }

    listening(): boolean {

        return this.channel.listening;
    }

    close(): Promise<void> {

        return this.channel.close();
    }
}
