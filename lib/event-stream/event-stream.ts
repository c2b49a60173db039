import { PassThrough } from 'stream';

import type { Request } from '@hapi/hapi';

import type { Principal } from '../../gateway/principal';
import type { ChangeBatch } from '../change-bus';
import { requestLogFields, type Log } from '../logger';
import { sseEvent, sseHeartbeat, sseRetry } from './sse';

/** How long a closed stream's last words may wait for a client that reads no more before the connection is cut. */
const CLOSE_GRACE_MS = 10_000;

/** A batch of a change log's bus: one transaction's events, in id order. */
export type LogBatch = ChangeBatch<{ id: number }>;

/** One event of the log as this client gets it: its text, or none when the client does not see it (its id still counts as handled). */
export interface FeedEvent {
    id: number;
    text?: string;
}

/** Where a stream starts. */
export interface StartPoint {
    /** Every event of the log up to this id counts as handled. */
    position: number;
    /** Written first, after the retry hint: a reset, or where the stream starts. */
    first?: string;
    /** Whether the events after the position must be read from the log before the live ones. */
    catchUp: boolean;
}

/** What one stream carries, from which change log: what makes a change stream and a recovery stream differ. */
export interface StreamFeed<Batch extends LogBatch> {
    start(): Promise<StartPoint>;
    /** A batch's events as this client gets them, in id order. */
    eventsOf(batch: Batch): FeedEvent[] | Promise<FeedEvent[]>;
    /** The log's events after `after` (up to `upTo`), in id order. */
    replay(after: number, upTo?: number): AsyncIterable<FeedEvent>;
}

/** The pacing of a stream, from its policy. */
export interface StreamPacing {
    retry_ms: number;
    heartbeat_seconds: number;
    /** Events held for a slow reader before its stream is closed with reason `overflow`. */
    max_buffered_events: number;
}

export interface EventStreamOptions<Batch extends LogBatch> {
    request: Request;
    credentials: Principal;
    /** Whose stream it is (an API key, a device): the hub caps and rechecks streams by it. */
    holderId: string;
    familyLongId: string;
    feed: StreamFeed<Batch>;
    pacing: StreamPacing;
    log: Log;
    /** Called once, when the stream has ended, whichever side ended it. */
    onEnd(stream: EventStream<Batch>): void;
}

type Task<Batch> = { kind: 'batch'; batch: Batch } | { kind: 'catch-up' };

/**
 * One client's server-sent events from a change log, in id order, each once. Batches
 * from the log's bus wait in an inbox that one loop works through, writing as fast as
 * the client reads; where a batch shows that something was missed, the loop reads the
 * log instead. When the client does not read and more than max_buffered_events wait, it
 * is closed (`overflow`) and resumes from its last id.
 */
export class EventStream<Batch extends LogBatch = LogBatch> {
    /** The response body. */
    readonly body = new PassThrough();
    readonly request: Request;
    readonly credentials: Principal;
    readonly holderId: string;
    readonly familyLongId: string;
    /** Every event of the family's log up to this id has been written, or was not for this client. */
    private position = 0;
    private readonly inbox: Task<Batch>[] = [];
    private waitingEvents = 0;
    private started = false;
    private working = false;
    /** Writing waits for the client to read. */
    private waitingForClient = false;
    private ended = false;
    private heartbeat?: NodeJS.Timeout;
    private closeGrace?: NodeJS.Timeout;

    constructor(private readonly options: EventStreamOptions<Batch>) {

        this.request = options.request;
        this.credentials = options.credentials;
        this.holderId = options.holderId;
        this.familyLongId = options.familyLongId;

        this.body.on('error', () => undefined);        // a write racing the client's departure
        options.request.raw.res.once('close', () => {

            clearTimeout(this.closeGrace);
            this.body.destroy();
            this.end();
        });
    }

    /**
     * Decides where the stream starts (the feed's start point). Every change committed
     * once it resolves reaches the client; the replay of what was missed runs on in the
     * background, before the live events.
     */
    async start(): Promise<void> {

        const point = await this.options.feed.start();
        if (this.ended) {
            return;
        }

        this.position = point.position;
        this.body.write(sseRetry(this.options.pacing.retry_ms));
        if (point.first) {
            this.body.write(point.first);
        }

        if (point.catchUp) {
            this.inbox.unshift({ kind: 'catch-up' });
        }

        this.heartbeat = setInterval(() => this.beat(), this.options.pacing.heartbeat_seconds * 1000);
        this.heartbeat.unref();
        this.started = true;
        void this.work();
    }

    /** A batch from the log's bus, for this stream's family. */
    deliver(batch: Batch): void {

        if (this.ended) {
            return;
        }

        this.inbox.push({ kind: 'batch', batch });
        this.waitingEvents += batch.events.length;
        if (!this.closedForOverflow()) {
            void this.work();
        }
    }

    /** Batches may have been lost on the way: read the log for anything after the position. */
    catchUp(): void {

        if (!this.ended && this.inbox.at(-1)?.kind !== 'catch-up') {
            this.inbox.push({ kind: 'catch-up' });
            void this.work();
        }
    }

    /**
     * Ends the stream with a last event, `close`, saying why: `overflow`, `shutdown`,
     * `internal_error`, or what the holder's rechecks say (the error code a new request
     * would get…). The client reads it before the connection closes.
     */
    close(code: string, message: string): void {

        if (this.ended) {
            return;
        }

        this.body.end(sseEvent({ event: 'close', data: { code, message } }));
        // A client that reads no more would otherwise hold the connection for ever.
        this.closeGrace = setTimeout(() => this.request.raw.req.socket?.destroy(), CLOSE_GRACE_MS);
        this.closeGrace.unref();
        this.end();
    }

    /** Releases what the stream holds; once, whichever side ended it. */
    private end(): void {

        if (this.ended) {
            return;
        }

        this.ended = true;
        clearInterval(this.heartbeat);
        this.inbox.length = 0;
        this.waitingEvents = 0;
        this.options.onEnd(this);
    }

    /**
     * Only a client that reads too slowly overflows: events may pile up for a moment
     * while the log is read, or when many arrive at once, without its fault.
     */
    private closedForOverflow(): boolean {

        const max = this.options.pacing.max_buffered_events;
        if (!this.waitingForClient || this.waitingEvents <= max) {
            return false;
        }

        this.close('overflow', `More than ${max} events were waiting for this client to read them: reconnect with Last-Event-ID to resume after the last event received.`);
        return true;
    }

    private beat(): void {

        // Behind on writing, the stream is not idle: no heartbeat needed.
        if (!this.body.writableNeedDrain) {
            this.body.write(sseHeartbeat);
        }
    }

    /** Works through the inbox, one task at a time, in order. */
    private async work(): Promise<void> {

        if (!this.started || this.working) {
            return;
        }

        this.working = true;
        try {
            for (let task = this.inbox.shift(); task && !this.ended; task = this.inbox.shift()) {
                await this.perform(task);
            }
        }
        catch (error) {
            this.options.log(['stream', 'error'], `stream of ${this.holderId} failed (request ${this.request.requestId}): ${(error as Error).stack ?? String(error)}`, requestLogFields(this.request));
            this.close('internal_error', 'The stream failed: reconnect with Last-Event-ID to resume after the last event received.');
        }
        finally {
            this.working = false;
        }
    }

    private async perform(task: Task<Batch>): Promise<void> {

        if (task.kind === 'batch') {
            this.waitingEvents -= task.batch.events.length;
            await this.apply(task.batch);
        }
        else {
            await this.replay();
        }
    }

    private async apply(batch: Batch): Promise<void> {

        const last = batch.events[batch.events.length - 1]?.id ?? 0;
        if (last <= this.position) {
            return;                                 // already sent (read from the log meanwhile)
        }

        if (batch.previous_id > this.position) {
            await this.replay(last);                // an earlier batch has not arrived (yet): the log has it
            return;
        }

        for (const event of await this.options.feed.eventsOf(batch)) {
            if (event.id > this.position) {
                await this.send(event);
            }
        }

        this.position = Math.max(this.position, last);
    }

    /** Sends the family's events after the position from the log, up to `upTo`. */
    private async replay(upTo?: number): Promise<void> {

        for await (const event of this.options.feed.replay(this.position, upTo)) {
            if (this.ended) {
                return;
            }

            await this.send(event);
        }

        this.position = Math.max(this.position, upTo ?? 0);
    }

    private async send(event: FeedEvent): Promise<void> {

        if (event.text !== undefined) {
            await this.write(event.text);
        }

        this.position = event.id;
    }

    /** Writes, then waits until the client has read enough for the next write. */
    private async write(text: string): Promise<void> {

        if (this.ended || this.body.write(text)) {
            return;
        }

        this.waitingForClient = true;
        if (this.closedForOverflow()) {
            return;
        }

        await new Promise<void>((resolve) => {

            const done = () => {

                this.body.off('drain', done);
                this.body.off('close', done);
                resolve();
            };

            this.body.on('drain', done);
            this.body.on('close', done);
        });
        this.waitingForClient = false;
    }
}
