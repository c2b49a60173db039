import type { Log } from './logger';
import type { RedisClient } from './redis';

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

    async close(): Promise<void> {

        const subscriber = this.subscriber;
        this.subscriber = undefined;
        this.subscribed = undefined;
        if (subscriber?.isReady) {
            await subscriber.quit();
        }
        else if (subscriber?.isOpen) {
            // Still connecting, or reconnecting: QUIT would wait for a connection that may never come.
            await subscriber.disconnect();
        }
    }

    private async subscribe(): Promise<void> {

        const subscriber = this.client.duplicate();
        this.subscriber = subscriber;
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
            // connect() resolves, unconnected, when close() came first; SUBSCRIBE would then wait for ever.
            if (!subscriber.isOpen) {
                throw new Error(`${this.name}: closed before subscribing`);
            }

            await subscriber.subscribe(this.name, (message) => this.handlers.message(message));
        }
        catch (error) {
            // The next listen() opens a connection of its own: this one must not stay open, or keep reconnecting.
            if (this.subscriber === subscriber) {
                this.subscriber = undefined;
            }

            if (subscriber.isOpen) {
                await subscriber.disconnect();
            }

            throw error;
        }
    }
}
