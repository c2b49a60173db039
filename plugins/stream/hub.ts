import Boom from '@hapi/boom';

import type { AuthEpoch } from '../../gateway/auth-epoch';
import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { Principal } from '../../gateway/principal';
import type { Reverify } from '../../gateway/reverify';
import { effectiveResources } from '../../gateway/scopes';
import type { ChangeBatch, ChangeBus } from '../../lib/change-bus';
import { apiError } from '../../lib/errors';
import type { Log } from '../../lib/logger';
import { answeredInTime } from '../../lib/redis';
import { retryAfterSeconds, serviceUnavailable } from '../../lib/service-unavailable';
import type { ChangeStream } from './change-stream';

/** How long a new stream waits to be listening (Redis pub/sub's own connections, made at the first stream) before it is refused. */
const listenDeadlineMs = 5000;

/** A stream cannot promise to miss nothing until it is listening: refused for now, rather than kept waiting for as long as Redis is down. */
function notListening(error: unknown): Boom.Boom {

    return serviceUnavailable(`The change stream cannot start now: the service cannot listen for changes (${error instanceof Error ? error.message : String(error)}). Try again in ${retryAfterSeconds} s, with Last-Event-ID to miss nothing.`);
}

export interface StreamHubOptions {
    changeBus: ChangeBus;
    authEpoch: AuthEpoch;
    /** A reload can take away what a key had (a plan's API access) without moving the auth epoch. */
    policyStore: PolicyStore;
    reverify: Reverify;
    log: Log;
}

function addTo(index: Map<string, Set<ChangeStream>>, key: string, stream: ChangeStream): void {

    const streams = index.get(key) ?? new Set();
    streams.add(stream);
    index.set(key, streams);
}

function removeFrom(index: Map<string, Set<ChangeStream>>, key: string, stream: ChangeStream): void {

    const streams = index.get(key);
    if (streams?.delete(stream) && streams.size === 0) {
        index.delete(key);
    }
}

/** What a stream carries depends on the plan and the resources in scope: when either changes, it reconnects to carry the new. */
function sameAccess(before: Principal, now: Principal): boolean {

    const resources = (credentials: Principal) => effectiveResources(credentials).sort().join(',');
    return before.family.plan === now.family.plan && resources(before) === resources(now);
}

/**
 * The open streams of this instance, by family (to hand each change batch to its
 * family's streams only) and by key (the per-key cap; one check per key when the auth
 * epoch moves or the policies are reloaded). It listens to the change bus, the auth epoch
 * and policy reloads while any stream is open, and stops when the last one closes.
 */
export class StreamHub {
    private readonly byFamily = new Map<string, Set<ChangeStream>>();
    private readonly byKey = new Map<string, Set<ChangeStream>>();
    private listening?: Promise<Array<() => void>>;
    private rechecking = false;
    private recheckAgain = false;

    constructor(private readonly options: StreamHubOptions) {}

    /** Open streams of this instance. */
    get size(): number {

        let size = 0;
        for (const streams of this.byKey.values()) {
            size += streams.size;
        }

        return size;
    }

    /**
     * Registers a stream; refuses (429) one more than `maxPerKey` for its key. Resolves
     * once every change committed from then on will reach it, so a stream that reads the
     * change log afterwards misses nothing in between, and once its key has been checked
     * again: the auth epoch may have moved between the gateway's check and this one's
     * listening, unheard (the stream is then closed, as any stream of a failing key).
     */
    async add(stream: ChangeStream, maxPerKey: number, retryAfterWhenFull: number): Promise<void> {

        if ((this.byKey.get(stream.keyId)?.size ?? 0) >= maxPerKey) {
            const error = apiError(429, 'rate_limited', `This API key has ${maxPerKey} change streams open already, the most it may: close one first.`);
            error.output.headers['Retry-After'] = String(retryAfterWhenFull);
            throw error;
        }

        addTo(this.byKey, stream.keyId, stream);
        addTo(this.byFamily, stream.familyLongId, stream);
        try {
            await answeredInTime(this.listen(), listenDeadlineMs);
        }
        catch (error) {
            this.remove(stream);
            throw notListening(error);
        }

        await this.recheckKey([stream]);
    }

    remove(stream: ChangeStream): void {

        removeFrom(this.byKey, stream.keyId, stream);
        removeFrom(this.byFamily, stream.familyLongId, stream);
        if (this.byKey.size === 0) {
            this.stopListening();
        }
    }

    /** Closes every open stream with the same last event (server stop). */
    closeAll(code: string, message: string): void {

        for (const streams of [...this.byKey.values()]) {
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

    private deliver(batch: ChangeBatch): void {

        for (const stream of this.byFamily.get(batch.family_long_id) ?? []) {
            stream.deliver(batch);
        }
    }

    private catchUpAll(): void {

        for (const streams of this.byFamily.values()) {
            streams.forEach((stream) => stream.catchUp());
        }
    }

    /** The auth epoch moved or the policies changed: every key with open streams is checked again (moves during a check start another). */
    private async recheck(): Promise<void> {

        if (this.rechecking) {
            this.recheckAgain = true;
            return;
        }

        this.rechecking = true;
        try {
            do {
                this.recheckAgain = false;
                await Promise.all([...this.byKey.values()].map((streams) => this.recheckKey([...streams])));
            } while (this.recheckAgain);
        }
        finally {
            this.rechecking = false;
        }
    }

    private async recheckKey(streams: ChangeStream[]): Promise<void> {

        let current: Principal;
        try {
            current = await this.options.reverify(streams[0].request);
        }
        catch (error) {
            if (!Boom.isBoom(error) || error.output.statusCode >= 500) {
                // The streams stay open: the next move of the epoch checks again.
                this.options.log(['stream', 'error'], `could not check API key ${streams[0].keyId} again: ${(error as Error).stack ?? String(error)}`);
                return;
            }

            const code = String(error.output.payload.code ?? 'invalid_key');
            streams.forEach((stream) => stream.close(code, error.message));
            return;
        }

        for (const stream of streams) {
            if (!sameAccess(stream.credentials, current)) {
                stream.close('credentials_changed', 'This key\'s plan or scope changed: reconnect with Last-Event-ID to carry on under the new one.');
            }
        }
    }
}
