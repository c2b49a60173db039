import { EventEmitter } from 'events';

import Boom from '@hapi/boom';

import type { AuthEpoch } from '../../gateway/auth-epoch';
import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { Principal } from '../../gateway/principal';
import type { Reverify } from '../../gateway/reverify';
import type { ChangeBus } from '../change-bus';
import { apiError } from '../errors';
import type { Log } from '../logger';
import { answeredInTime } from '../redis';
import { retryAfterSeconds, serviceUnavailable } from '../service-unavailable';
import type { EventStream, LogBatch } from './event-stream';

/** How long a new stream waits to be listening (Redis pub/sub's own connections, made at the first stream) before it is refused. */
const listenDeadlineMs = 5000;

/** A stream cannot promise to miss nothing until it is listening: refused for now, rather than kept waiting for as long as Redis is down. */
function notListening(streamName: string, error: unknown): Boom.Boom {

    return serviceUnavailable(`The ${streamName} cannot start now: the service cannot listen for changes (${error instanceof Error ? error.message : String(error)}). Try again in ${retryAfterSeconds} s, with Last-Event-ID to miss nothing.`);
}

export interface StreamHubOptions<Batch extends LogBatch> {
    /** What the streams are called in refusals: `change stream`. */
    streamName: string;
    /** What their holders are called: `API key`, `device`. */
    holderName: string;
    changeBus: ChangeBus<Batch>;
    authEpoch: AuthEpoch;
    /** A reload can take away what a holder had (a plan's API access) without moving the auth epoch. */
    policyStore: PolicyStore;
    reverify: Reverify;
    /** When a holder still passes its checks but should reconnect to get what it may now (a new scope): the stream closes with `credentials_changed` and `message`. */
    accessChanged?: { changed(before: Principal, now: Principal): boolean; message: string };
    log: Log;
}

type Stream<Batch extends LogBatch> = EventStream<Batch>;

function addTo<Batch extends LogBatch>(index: Map<string, Set<Stream<Batch>>>, key: string, stream: Stream<Batch>): void {

    const streams = index.get(key) ?? new Set();
    streams.add(stream);
    index.set(key, streams);
}

function removeFrom<Batch extends LogBatch>(index: Map<string, Set<Stream<Batch>>>, key: string, stream: Stream<Batch>): void {

    const streams = index.get(key);
    if (streams?.delete(stream) && streams.size === 0) {
        index.delete(key);
    }
}

/**
 * The open streams of one route of this instance, by family (to hand each change batch to
 * its family's streams only) and by holder (the cap per API key or device; one check per
 * holder when the auth epoch moves or the policies are reloaded). It listens to the log's
 * bus, the auth epoch and policy reloads while any stream is open, and stops when the last
 * one closes. It emits `removed` when a stream has let go of it.
 */
export class StreamHub<Batch extends LogBatch> extends EventEmitter {
    private readonly byFamily = new Map<string, Set<Stream<Batch>>>();
    private readonly byHolder = new Map<string, Set<Stream<Batch>>>();
    private listening?: Promise<Array<() => void>>;
    private rechecking = false;
    private recheckAgain = false;

    constructor(private readonly options: StreamHubOptions<Batch>) {

        super();
    }

    /** Open streams of this instance. */
    get size(): number {

        let size = 0;
        for (const streams of this.byHolder.values()) {
            size += streams.size;
        }

        return size;
    }

    /**
     * Registers a stream; refuses (429) one more than `maxPerHolder` for its holder. Resolves
     * once every change committed from then on will reach it, so a stream that reads the
     * change log afterwards misses nothing in between, and once its holder has been checked
     * again: the auth epoch may have moved between the gateway's check and this one's
     * listening, unheard (the stream is then closed, as any stream of a failing holder).
     */
    async add(stream: Stream<Batch>, maxPerHolder: number, retryAfterWhenFull: number): Promise<void> {

        const { holderName, streamName } = this.options;
        if ((this.byHolder.get(stream.holderId)?.size ?? 0) >= maxPerHolder) {
            const error = apiError(429, 'rate_limited', `This ${holderName} has ${maxPerHolder} ${streamName}s open already, the most it may: close one first.`);
            error.output.headers['Retry-After'] = String(retryAfterWhenFull);
            throw error;
        }

        addTo(this.byHolder, stream.holderId, stream);
        addTo(this.byFamily, stream.familyLongId, stream);
        try {
            await answeredInTime(this.listen(), listenDeadlineMs);
        }
        catch (error) {
            this.remove(stream);
            throw notListening(streamName, error);
        }

        await this.recheckHolder([stream]);
    }

    remove(stream: Stream<Batch>): void {

        removeFrom(this.byHolder, stream.holderId, stream);
        removeFrom(this.byFamily, stream.familyLongId, stream);
        if (this.byHolder.size === 0) {
            this.stopListening();
        }

        this.emit('removed', stream);
    }

    /** Closes every open stream with the same last event (server stop). */
    closeAll(code: string, message: string): void {

        for (const streams of [...this.byHolder.values()]) {
            for (const stream of [...streams]) {
                stream.close(code, message);
            }
        }
    }

    /** Subscribes once; every new stream then also finds the subscriptions' connections up (they drop in a Redis outage, and come back by themselves). */
    private async listen(): Promise<void> {

        this.listening ??= this.subscribe().catch((error: unknown) => {

            this.listening = undefined;
            throw error;
        });

        await this.listening;
        if (!this.options.changeBus.listening() || !this.options.authEpoch.listening()) {
            throw new Error('the connection to Redis is down');
        }
    }

    private async subscribe(): Promise<Array<() => void>> {

        const stopChanges = await this.options.changeBus.subscribe((batch) => this.deliver(batch), () => this.catchUpAll());
        try {
            return [stopChanges, await this.options.authEpoch.subscribe(() => void this.recheck()), this.subscribeToPolicyReloads()];
        }
        catch (error) {
            stopChanges();
            throw error;
        }
    }

    private subscribeToPolicyReloads(): () => void {

        const recheck = () => void this.recheck();
        this.options.policyStore.on('reloaded', recheck);
        return () => this.options.policyStore.off('reloaded', recheck);
    }

    private stopListening(): void {

        const listening = this.listening;
        this.listening = undefined;
        void listening?.then((stops) => stops.forEach((stop) => stop()), () => undefined);
    }

    private deliver(batch: Batch): void {

        for (const stream of this.byFamily.get(batch.family_long_id) ?? []) {
            stream.deliver(batch);
        }
    }

    private catchUpAll(): void {

        for (const streams of this.byFamily.values()) {
            streams.forEach((stream) => stream.catchUp());
        }
    }

    /** The auth epoch moved or the policies changed: every holder with open streams is checked again (moves during a check start another). */
    private async recheck(): Promise<void> {

        if (this.rechecking) {
            this.recheckAgain = true;
            return;
        }

        this.rechecking = true;
        try {
            do {
                this.recheckAgain = false;
                await Promise.all([...this.byHolder.values()].map((streams) => this.recheckHolder([...streams])));
            } while (this.recheckAgain);
        }
        finally {
            this.rechecking = false;
        }
    }

    private async recheckHolder(streams: Array<Stream<Batch>>): Promise<void> {

        let current: Principal;
        try {
            current = await this.options.reverify(streams[0].request);
        }
        catch (error) {
            if (!Boom.isBoom(error) || error.output.statusCode >= 500) {
                // The streams stay open: the next move of the epoch checks again.
                this.options.log(['stream', 'error'], `could not check ${this.options.holderName} ${streams[0].holderId} again: ${(error as Error).stack ?? String(error)}`);
                return;
            }

            const code = String(error.output.payload.code ?? 'unauthorized');
            streams.forEach((stream) => stream.close(code, error.message));
            return;
        }

        const { accessChanged } = this.options;
        if (accessChanged) {
            streams.filter((stream) => accessChanged.changed(stream.credentials, current)).forEach((stream) => stream.close('credentials_changed', accessChanged.message));
        }
    }
}
