import Crypto from 'crypto';
import { setTimeout as sleep } from 'timers/promises';

import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/utils';

import type { RedisClient } from '../../../lib/redis';
import { retryAfterSeconds, serviceUnavailable } from '../../../lib/service-unavailable';
import { refused } from './context';

/** How long a lock lives unless its holder renews it: a process that died holding one frees it within this. */
const leaseMs = 10_000;
/** How often a holder renews its lock and looks whether another request waits for it. */
const renewMs = 1000;
/** How often a request waiting for a lock tries again. */
const retryMs = 100;

// Renews the lock if this holder still has it; answers whether another request asked for it meanwhile.
const renewScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('EXISTS', KEYS[2])`;

// Deletes the lock only if this holder still has it (an expired lease may have gone to another).
const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * tus's Locker across instances: an upload's lock is a Redis key (`<prefix>upload-lock:<id>`, SET NX with a
 * lease its holder renews). A request that finds it taken leaves a mark (`<prefix>upload-lock-wanted:<id>`);
 * the holder sees it at its next renewal and is asked to let go (tus's `requestRelease`: a PATCH whose client
 * vanished without closing its connection ends, keeping what it received), as tus's MemoryLocker does in one process.
 */
export class RedisUploadLocker implements Locker {

    constructor(readonly client: RedisClient, readonly keyPrefix: string, readonly acquireTimeoutMs = 30_000) {}

    newLock(id: string): Lock {

        return new RedisUploadLock(this, id);
    }
}

class RedisUploadLock implements Lock {

    private readonly token = Crypto.randomBytes(16).toString('hex');
    private readonly key: string;
    private readonly wantedKey: string;
    private renewal?: NodeJS.Timeout;

    constructor(private readonly locker: RedisUploadLocker, id: string) {

        this.key = `${locker.keyPrefix}upload-lock:${id}`;
        this.wantedKey = `${locker.keyPrefix}upload-lock-wanted:${id}`;
    }

    async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {

        try {
            await this.acquire(signal, requestRelease);
        }
        catch (error) {
            if (error === ERRORS.ERR_LOCK_TIMEOUT) {
                throw error;
            }

            throw refused(serviceUnavailable(`Redis, which holds the uploads' locks, is not answering just now: retry after ${retryAfterSeconds} seconds.`));
        }
    }

    private async acquire(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {

        const { client, acquireTimeoutMs } = this.locker;
        const deadline = Date.now() + acquireTimeoutMs;
        while (await client.set(this.key, this.token, { NX: true, PX: leaseMs }) !== 'OK') {
            await client.set(this.wantedKey, '1', { PX: renewMs * 3 });
            if (signal.aborted || Date.now() >= deadline) {
                throw ERRORS.ERR_LOCK_TIMEOUT;
            }

            await sleep(retryMs, undefined, { signal }).catch(() => undefined);
        }

        await client.del(this.wantedKey);
        this.renewal = setInterval(() => void this.renew(requestRelease), renewMs);
    }

    async unlock(): Promise<void> {

        clearInterval(this.renewal);
        // Redis not answering: the lease frees the lock within leaseMs.
        await this.locker.client.eval(releaseScript, { keys: [this.key], arguments: [this.token] }).catch(() => undefined);
    }

    private async renew(requestRelease: RequestRelease): Promise<void> {

        try {
            const wanted = await this.locker.client.eval(renewScript, { keys: [this.key, this.wantedKey], arguments: [this.token, String(leaseMs)] });
            if (wanted === 1) {
                await requestRelease();
            }
        }
        catch {
            // Redis did not answer: the lease runs on, and the next renewal tries again.
        }
    }
}
