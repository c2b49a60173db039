import type { Log } from '../logger';
import type { ChangeAction, ChangeEvent } from '../../models/change-event';

/** A change event as the stream sends it (DESIGN.md §5): metadata only, never record contents. */
export interface ChangeEventData {
    /** The change log's id: global, so increasing within each family too. */
    id: number;
    resource: string;
    action: ChangeAction;
    record_id: string;
    family_long_id: string;
    revision: number;
    /** UTC ISO-8601. */
    occurred_at: string;
}

export function changeEventData(event: ChangeEvent): ChangeEventData {

    return {
        id: event.id,
        resource: event.resource,
        action: event.action,
        record_id: event.record_id,
        family_long_id: event.family_long_id,
        revision: event.revision,
        occurred_at: event.occurred_at.toISOString()
    };
}

/** The change events one transaction committed: one family's, in id order. */
export interface ChangeBatch<Event = ChangeEventData> {
    family_long_id: string;
    /**
     * The family's latest event id before these, 0 when it had none: a reader that has
     * not seen that one has missed something (batches from different instances may
     * cross on the way) and reads the change log to catch up.
     */
    previous_id: number;
    events: Event[];
}

export type ChangeListener<Batch = ChangeBatch> = (batch: Batch) => void;

/**
 * Announces committed change events to whoever listens in this process, and with
 * Redis in every instance: live delivery without polling the change log, which
 * stays the source of truth (a listener that may have missed batches reads it).
 */
export interface ChangeBus<Batch = ChangeBatch> {
    /** Never throws and never waits: the events are committed whatever happens to the announcement. */
    publish(batch: Batch): void;
    /**
     * Resolves once every batch published from then on will reach `listener`, with
     * the function that stops it. `onMissed`: batches may have been lost (a dropped connection).
     */
    subscribe(listener: ChangeListener<Batch>, onMissed?: () => void): Promise<() => void>;
    /** Whether a batch published now would reach this process's listeners: false while its connection to Redis is down. */
    listening(): boolean;
    /** Listeners in this process (tests check that closed streams leave none behind). */
    listenerCount(): number;
    close(): Promise<void>;
}

interface Subscription<Batch> {
    listener: ChangeListener<Batch>;
    onMissed?: () => void;
}

/** The listeners of one process, which both buses deliver to; one failing listener does not stop the others. */
export class ChangeListeners<Batch = ChangeBatch> {
    private readonly subscriptions = new Set<Subscription<Batch>>();

    constructor(private readonly log: Log) {}

    add(listener: ChangeListener<Batch>, onMissed?: () => void): () => void {

        const subscription = { listener, onMissed };
        this.subscriptions.add(subscription);
        return () => this.subscriptions.delete(subscription);
    }

    get size(): number {

        return this.subscriptions.size;
    }

    deliver(batch: Batch): void {

        this.each((subscription) => subscription.listener(batch));
    }

    missed(): void {

        this.each((subscription) => subscription.onMissed?.());
    }

    private each(call: (subscription: Subscription<Batch>) => void): void {

        for (const subscription of this.subscriptions) {
            try {
                call(subscription);
            }
            catch (error) {
                this.log(['change-bus', 'error'], `a change listener failed: ${(error as Error).stack ?? String(error)}`);
            }
        }
    }
}
