import type { Log } from './logger';
import { closeRedis, type RedisClient } from './redis';

export interface ChannelHandlers {
    message(text: string): void;
    /**
     * The connection dropped and is back: whatever was published meanwhile is lost,
     * so the listener must catch up from the source of truth.
     */
    reconnected(): void;
}

/**
 * Listens to one Redis pub/sub channel. A subscribed connection can run no other
 * command, so it gets a connection of its own, opened at the first listen() (a CLI
 * run that never listens opens none) and kept until close().
 */
export class RedisChannel {
    private subscriber?: RedisClient;
    private subscribed?: Promise<void>;
    private subscribedOnce = false;
    private attempts?: ConnectAttempts;

    constructor(private readonly client: RedisClient, readonly name: string, private readonly log: Log, private readonly handlers: ChannelHandlers) {}

    publish(message: string): Promise<number> {

        return this.client.publish(this.name, message);
    }

    /** Resolves once every message published from then on will be received. */
    listen(): Promise<void> {

        this.subscribed ??= this.subscribe().catch((error: Error) => {

            this.subscribed = undefined;        // the next listen() tries again
            throw error;
        });

        return this.subscribed;
    }

    /**
     * Whether a message published now would be received: subscribed, and the connection is up. While it is
     * down node-redis reconnects and subscribes again by itself, but what is published meanwhile is lost.
     */
    get listening(): boolean {

        return this.subscribedOnce && this.subscriber?.isReady === true;
    }

    async close(): Promise<void> {

        const { subscriber, attempts } = this;
        this.subscriber = undefined;
        this.attempts = undefined;
        this.subscribed = undefined;
        this.subscribedOnce = false;
        if (!subscriber?.isOpen) {
            return;
        }

        await attempts?.ended();
        await closeRedis(subscriber);
    }

    private async subscribe(): Promise<void> {

        const subscriber = this.client.duplicate();
        this.subscriber = subscriber;
        this.attempts = new ConnectAttempts(subscriber);
        let connections = 0;
        subscriber.on('error', (error: Error) => this.log(['redis', 'error'], `${this.name} subscriber: ${error.message}`));
        // node-redis subscribes again by itself after a reconnection; what was published meanwhile is gone.
        subscriber.on('ready', () => {

            if (++connections > 1) {
                this.handlers.reconnected();
            }
        });

        try {
            await subscriber.connect();
            // close() came first (connect() then resolves unconnected, or close() is quitting): SUBSCRIBE would wait for ever.
            if (this.subscriber !== subscriber || !subscriber.isOpen) {
                throw new Error(`${this.name}: closed before subscribing`);
            }

            await subscriber.subscribe(this.name, (message) => this.handlers.message(message));
            this.subscribedOnce = true;
        }
        catch (error) {
            // The next listen() opens a connection of its own: this one must not stay open, or keep reconnecting.
            if (this.subscriber === subscriber) {
                this.subscriber = undefined;
                this.attempts = undefined;
            }

            if (subscriber.isOpen) {
                await subscriber.disconnect();
            }

            throw error;
        }
    }
}

/**
 * Follows a node-redis 4 client's connection attempts. An attempt cannot be cancelled: a
 * disconnect() while its TCP connect is in flight leaves the socket it then opens connected
 * for good, so whoever closes the client waits for the attempt to end first.
 */
class ConnectAttempts {
    private inFlight = true;                    // made right before connect()

    constructor(private readonly client: RedisClient) {

        client.on('reconnecting', () => {

            this.inFlight = true;
        });
        client.on('ready', () => {

            this.inFlight = false;
        });
        client.on('error', () => {

            this.inFlight = false;
        });
    }

    /**
     * Resolves when no attempt is in flight: at once, or when the one in flight is ready or has
     * failed (its connect timeout fails it), or after `boundMs` should Redis connect and never answer.
     */
    ended(boundMs = 5000): Promise<void> {

        if (!this.inFlight) {
            return Promise.resolve();
        }

        return new Promise((resolve) => {

            const done = () => {

                clearTimeout(timer);
                this.client.off('ready', done);
                this.client.off('error', done);
                resolve();
            };

            const timer = setTimeout(done, boundMs);
            this.client.once('ready', done);
            this.client.once('error', done);
        });
    }
}
