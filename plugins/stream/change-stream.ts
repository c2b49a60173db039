import { PassThrough } from 'stream';

import type { Request } from '@hapi/hapi';

import type { Principal } from '../../gateway/principal';
import type { StreamPolicy } from './policy';
import { effectiveResources } from '../../gateway/scopes';
import type { ChangeBatch, ChangeEventData } from '../../lib/change-bus';
import { requestLogFields, type Log } from '../../lib/logger';
import type { ChangeLogReader } from './change-log';
import { sseEvent, sseHeartbeat, sseRetry } from './sse';

/** How long a closed stream's last words may wait for a client that reads no more before the connection is cut. */
const CLOSE_GRACE_MS = 10_000;

type Task = { kind: 'batch'; batch: ChangeBatch } | { kind: 'catch-up' };

export interface ChangeStreamOptions {
    request: Request;
    credentials: Principal;
    policy: StreamPolicy;
    changeLog: ChangeLogReader;
    log: Log;
    /** Called once, when the stream has ended, whichever side ended it. */
    onEnd(stream: ChangeStream): void;
}

/**
 * One client's stream: its family's change events in its key's scope, in id order,
 * each once. Batches from the change bus wait in an inbox that one loop works
 * through, writing as fast as the client reads; where a batch shows that something
 * was missed, the loop reads the change log instead. When the client does not read
 * and more than the policy's max_buffered_events wait, it is closed (`overflow`) and
 * resumes from its last id.
 */
export class ChangeStream {
    /** The response body. */
    readonly body = new PassThrough();
    readonly request: Request;
    readonly credentials: Principal;
    readonly keyId: string;
    readonly familyLongId: string;
    private readonly resources: readonly string[];
    /** Every event of the family up to this id has been written, or was outside the scope. */
    private position = 0;
    private readonly inbox: Task[] = [];
    private waitingEvents = 0;
    private started = false;
    private working = false;
    /** Writing waits for the client to read. */
    private waitingForClient = false;
    private ended = false;
    private heartbeat?: NodeJS.Timeout;
    private closeGrace?: NodeJS.Timeout;

    constructor(private readonly options: ChangeStreamOptions) {

        this.request = options.request;
        this.credentials = options.credentials;
        this.keyId = options.credentials.who.id;
        this.familyLongId = options.credentials.family.familyLongId;
        this.resources = effectiveResources(options.credentials);

        this.body.on('error', () => undefined);        // a write racing the client's departure
        options.request.raw.res.once('close', () => {

            clearTimeout(this.closeGrace);
            this.body.destroy();
            this.end();
        });
    }

    /**
     * Decides where the stream starts: after the family's latest event, or after
     * `lastEventId` (or at a `reset` when the events after it are gone). Every change
     * committed once it resolves reaches the client; the replay of what was missed
     * runs on in the background, before the live events.
     */
    async start(lastEventId?: number): Promise<void> {

        const { changeLog, policy } = this.options;
        const point = lastEventId === undefined ?
            { position: await changeLog.latest(this.familyLongId) } :
            await changeLog.resumeAfter(this.familyLongId, lastEventId, this.resources, policy.retention_days);
        if (this.ended) {
            return;
        }

        this.position = point.position;
        this.body.write(sseRetry(policy.retry_ms));
        if (point.reset) {
            // Its id is where the client carries on from once it has re-fetched.
            this.body.write(sseEvent({ id: point.reset.id, event: 'reset', data: { reason: point.reset.reason, last_event_id: lastEventId, message: point.reset.message } }));
        }
        else if (lastEventId !== undefined) {
            this.inbox.unshift({ kind: 'catch-up' });
        }

        this.heartbeat = setInterval(() => this.beat(), policy.heartbeat_seconds * 1000);
        this.heartbeat.unref();
        this.started = true;
        void this.work();
    }

    /** A batch from the change bus, for this stream's family. */
    deliver(batch: ChangeBatch): void {

        if (this.ended) {
            return;
        }

        this.inbox.push({ kind: 'batch', batch });
        this.waitingEvents += batch.events.length;
        if (!this.closedForOverflow()) {
            void this.work();
        }
    }

    /** Batches may have been lost on the way: read the change log for anything after the position. */
    catchUp(): void {

        if (!this.ended && this.inbox.at(-1)?.kind !== 'catch-up') {
            this.inbox.push({ kind: 'catch-up' });
            void this.work();
        }
    }

    /**
     * Ends the stream with a last event, `close`, saying why: `code` is `overflow`,
     * `credentials_changed`, `shutdown`, `internal_error` or the error code a new request
     * would get (`invalid_key`, `family_suspended`…). The client reads it before the connection closes.
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
     * while the change log is read, or when many arrive at once, without its fault.
     */
    private closedForOverflow(): boolean {

        const max = this.options.policy.max_buffered_events;
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
            this.options.log(['stream', 'error'], `change stream of key ${this.keyId} failed (request ${this.request.requestId}): ${(error as Error).stack ?? String(error)}`, requestLogFields(this.request));
            this.close('internal_error', 'The stream failed: reconnect with Last-Event-ID to resume after the last event received.');
        }
        finally {
            this.working = false;
        }
    }

    private async perform(task: Task): Promise<void> {

        if (task.kind === 'batch') {
            this.waitingEvents -= task.batch.events.length;
            await this.apply(task.batch);
        }
        else {
            await this.replay();
        }
    }

    private async apply(batch: ChangeBatch): Promise<void> {

        const last = batch.events[batch.events.length - 1]?.id ?? 0;
        if (last <= this.position) {
            return;                                 // already sent (read from the change log meanwhile)
        }

        if (batch.previous_id > this.position) {
            await this.replay(last);                // an earlier batch has not arrived (yet): the log has it
            return;
        }

        for (const event of batch.events) {
            if (event.id > this.position) {
                await this.send(event);
            }
        }

        this.position = last;
    }

    /** Sends the family's events after the position from the change log, up to `upTo`. */
    private async replay(upTo?: number): Promise<void> {

        for await (const event of this.options.changeLog.eventsAfter(this.familyLongId, this.position, this.resources, upTo)) {
            if (this.ended) {
                return;
            }

            await this.send(event);
            this.position = event.id;
        }

        this.position = Math.max(this.position, upTo ?? 0);
    }

    private async send(event: ChangeEventData): Promise<void> {

        if (this.resources.includes(event.resource)) {
            await this.write(sseEvent({ id: event.id, event: `${event.resource}.${event.action}`, data: event }));
        }
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
