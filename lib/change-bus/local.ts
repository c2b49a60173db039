import type { Log } from '../logger';
import { ChangeListeners, type ChangeBatch, type ChangeBus, type ChangeListener } from './bus';

/** One process (the embedded default): batches go straight to this process's listeners. */
export class LocalChangeBus<Batch = ChangeBatch> implements ChangeBus<Batch> {
    private readonly listeners: ChangeListeners<Batch>;

    constructor(log: Log) {

        this.listeners = new ChangeListeners(log);
    }

    publish(batch: Batch): void {

        this.listeners.deliver(batch);
    }

    subscribe(listener: ChangeListener<Batch>, onMissed?: () => void): Promise<() => void> {

        return Promise.resolve(this.listeners.add(listener, onMissed));
    }

    listening(): boolean {

        return true;
    }

    listenerCount(): number {

        return this.listeners.size;
    }

    close(): Promise<void> {

        return Promise.resolve();
    }
}
