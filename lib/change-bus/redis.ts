import type { Log } from '../logger';
import type { RedisClient } from '../redis';
import { RedisChannel } from '../redis-channel';
import { ChangeListeners, type ChangeBatch, type ChangeBus, type ChangeListener } from './bus';

/**
 * Several instances: every batch goes through one Redis pub/sub channel (`changes` for the
 * family API's change log, one of its own for each other log), so an event
 * committed through any instance reaches the listeners of all of them, this one's
 * included (one path for all, in one order per publishing instance).
 */
export class RedisChangeBus<Batch extends { events: Array<{ id: number }> } = ChangeBatch> implements ChangeBus<Batch> {
    private readonly listeners: ChangeListeners<Batch>;
    private readonly channel: RedisChannel;

    constructor(client: RedisClient, prefix: string, private readonly log: Log, channelName = 'changes') {

        this.listeners = new ChangeListeners(log);
        this.channel = new RedisChannel(client, `${prefix}${channelName}`, log, {
            message: (text) => this.received(text),
            reconnected: () => this.listeners.missed()
        });
    }

    publish(batch: Batch): void {

        this.channel.publish(JSON.stringify(batch)).catch((error: Error) => {

            // Streams elsewhere catch up when the family's next batch arrives; this instance's at once.
            this.log(['change-bus', 'error'], `change events ${batch.events.map((event) => event.id).join(', ')} not announced: ${error.message}`);
            this.listeners.missed();
        });
    }

    async subscribe(listener: ChangeListener<Batch>, onMissed?: () => void): Promise<() => void> {

        await this.channel.listen();
        return this.listeners.add(listener, onMissed);
    }

    listening(): boolean {

        return this.channel.listening;
    }

    listenerCount(): number {

        return this.listeners.size;
    }

    close(): Promise<void> {

        return this.channel.close();
    }

    private received(text: string): void {

        let batch: Batch;
        try {
            batch = JSON.parse(text) as Batch;
        }
        catch {
            this.log(['change-bus', 'error'], `ignored a message that is not JSON on ${this.channel.name}`);
            return;
        }

        this.listeners.deliver(batch);
    }
}
