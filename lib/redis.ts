import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof createClient>;

/**
 * Connects to Redis. An unreachable Redis at start-up fails start-up with a clear
 * error (instead of retrying forever); once connected, a lost connection is
 * retried with backoff and logged, and commands wait for it.
 */
export async function connectRedis(url: string, log: (tags: string[], message: string) => void): Promise<RedisClient> {

    let connectedOnce = false;
    const client = createClient({
        url,
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

    await client.connect();
    connectedOnce = true;
    return client;
}
