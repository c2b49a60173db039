import type { ChangeBatch, ChangeEventData } from '../../lib/change-bus';
import type { FeedEvent, StartPoint, StreamFeed } from '../../lib/event-stream/event-stream';
import { sseEvent } from '../../lib/event-stream/sse';
import type { ChangeLogReader } from './change-log';

export interface ChangeFeedOptions {
    changeLog: ChangeLogReader;
    familyLongId: string;
    /** The resources in the key's scope: the only ones the stream carries. */
    resources: readonly string[];
    retentionDays: number;
    /** Where the client resumes; none for a new stream. */
    lastEventId?: number;
}

/**
 * What a change stream carries: its family's change events in its key's scope, from the
 * change log (change_events) and its bus, each as `<resource>.<action>` with its id.
 */
export class ChangeFeed implements StreamFeed<ChangeBatch> {

    constructor(private readonly options: ChangeFeedOptions) {}

    /** After the family's latest event, or after `lastEventId` (or at a `reset` when the events after it are gone). */
    async start(): Promise<StartPoint> {

        const { changeLog, familyLongId, resources, retentionDays, lastEventId } = this.options;
        if (lastEventId === undefined) {
            return { position: await changeLog.latest(familyLongId), catchUp: false };
        }

        const point = await changeLog.resumeAfter(familyLongId, lastEventId, resources, retentionDays);
        if (!point.reset) {
            return { position: point.position, catchUp: true };
        }

        // Its id is where the client carries on from once it has re-fetched.
        const { id, reason, message } = point.reset;
        return { position: point.position, first: sseEvent({ id, event: 'reset', data: { reason, last_event_id: lastEventId, message } }), catchUp: false };
    }

    eventsOf(batch: ChangeBatch): FeedEvent[] {

        return batch.events.map((event) => this.feedEvent(event));
    }

    async *replay(after: number, upTo?: number): AsyncGenerator<FeedEvent> {

        const { changeLog, familyLongId, resources } = this.options;
        for await (const event of changeLog.eventsAfter(familyLongId, after, resources, upTo)) {
            yield this.feedEvent(event);
        }
    }

    private feedEvent(event: ChangeEventData): FeedEvent {

        return { id: event.id, text: this.options.resources.includes(event.resource) ? sseEvent({ id: event.id, event: `${event.resource}.${event.action}`, data: event }) : undefined };
    }
}
