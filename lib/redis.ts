import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof createClient>;

/** Connects to Redis; failures after start-up are logged and the client reconnects by itself. */
export async function connectRedis(url: string, log: (tags: string[], message: string) => void): Promise<RedisClient> {

    const client = createClient({ url, socket: { connectTimeout: 5000 } });
    client.on('error', (error: Error) => log(['redis', 'error'], error.message));
    await client.connect();
    return client;
}
