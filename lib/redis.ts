import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof createClient>;

/**
 * How long a request waits for Redis before it goes on without it (the auth epoch, the rate
 * limits): a request-path command takes well under a millisecond when Redis is well.
 */
export const redisAnswerDeadlineMs = 1000;

/**
 * Connects to Redis. An unreachable Redis at start-up fails start-up with a clear
 * error (instead of retrying forever); once connected, a lost connection is
 * retried with backoff and logged. Meanwhile commands fail at once rather than
 * wait in node-redis's offline queue: a request must not hang for as long as Redis is down.
 *
 * `mayBeDown`: a one-shot command that must do its work without Redis if need be (the CLI's changes of
 * access, saved in the database whatever Redis does) gets the client unconnected instead, the failure
 * logged: its every command then fails at once.
 */
export async function connectRedis(url: string, log: (tags: string[], message: string) => void, { mayBeDown = false } = {}): Promise<RedisClient> {

    let connectedOnce = false;
    const client = createClient({
        url,
        disableOfflineQueue: true,
        socket: {
            connectTimeout: 5000,
            reconnectStrategy: (retries: number, cause: Error) => (connectedOnce ? Math.min(retries * 100, 3000) : new Error(`Redis at ${new URL(url).host} does not answer: ${cause.message}`))
        }
    });

    client.on('error', (error: Error) => {

        if (connectedOnce) {
            log(['redis', 'error'], error.message);
        }
    });

    try {
        await client.connect();
    }
    catch (error) {
        if (!mayBeDown) {
            throw error;
        }

        log(['redis', 'error'], `${(error as Error).message}: going on without it`);
        return client;
    }

    connectedOnce = true;
    return client;
}

/**
 * A command's answer, or a rejection once `redisAnswerDeadlineMs` has passed without one: a Redis
 * that stopped answering (paused, overloaded, or behind a connection the network dropped without
 * a reset) keeps the connection open, so node-redis would wait for the answer for as long as that lasts.
 */
export function answeredInTime<T>(command: Promise<T>, deadlineMs = redisAnswerDeadlineMs): Promise<T> {

    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {

        timer = setTimeout(() => reject(new Error(`Redis did not answer within ${deadlineMs} ms`)), deadlineMs);
    });

    return Promise.race([command, late]).finally(() => clearTimeout(timer));
}

/**
 * Closes a client: with QUIT when it is connected and Redis answers, else at once. node-redis's
 * `quit()` on a client waiting to reconnect waits for ever, holding nothing that keeps the process
 * alive: a stop during an outage would never end, and the process would exit mid-stop.
 */
export async function closeRedis(client: RedisClient): Promise<void> {

    if (client.isReady) {
        try {
            await answeredInTime(client.quit());
            return;
        }
        catch {
            // Redis stopped answering: closed below, without its goodbye.
        }
    }

    if (client.isOpen) {
        await client.disconnect();
    }
}
