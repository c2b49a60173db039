import { setTimeout as sleep } from 'timers/promises';

import { createParser, type EventSourceMessage } from 'eventsource-parser';

import { ApiError, OfflineError, SignedOutError } from './errors';
import { apiErrorOf } from './http';
import type { MessagingClient } from './messaging-client';
import type { Change, SyncReset } from './types';

export interface StreamHandlers {
    /** Awaited before the next event: the caller stores the change, then its id counts as seen. */
    onChange(change: Change): Promise<void> | void;
    /** The cursor was past the retention window or unknown: the caller syncs anew; the stream carries on after reset.cursor. */
    onReset(reset: SyncReset): Promise<void> | void;
    onReady?(cursor: string): void;
    onState?(state: 'connecting' | 'open' | 'offline'): void;
}

export interface StreamOptions extends StreamHandlers {
    /** Where to resume: sync's next_cursor, or the id of the last event handled. */
    cursor?: string;
    signal: AbortSignal;
    /** The reconnection delays: full jitter over initialMs·2ⁿ, capped at maxMs. Default: the server's `retry:` hint, up to a minute. */
    backoff?: { initialMs: number; maxMs: number };
    /** A connection silent this long (no event, no heartbeat) counts as lost. Default 45 s (three heartbeats). */
    idleTimeoutMs?: number;
}

export interface StreamEnd {
    code: string;
    message: string;
}

/** What one connection came to: the stream's end, or a reconnection (after `retryAfterMs` if the server said). */
type Connection = { end: StreamEnd } | { opened: boolean; retryAfterMs?: number };

/** `close` codes after which a new connection is what the server asks for. */
const reconnectCodes = new Set(['overflow', 'shutdown', 'invalid_token']);

/** Answers worth another try later: the service is busy or unwell, not refusing this client. */
const transientStatuses = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Follows GET /messaging/v1/stream until it ends for good: each change handed to onChange in order, and the
 * connection resumed with Last-Event-ID (the last event handled) whenever it breaks, after an exponential back-off
 * with full jitter (back to its start once a connection opened). Resolves with the `close` code that a new request
 * would meet too (account_disabled, family_suspended, messaging_suspended; invalid_token once a refresh fails too),
 * or `aborted` when the signal aborts. A handler's error rejects it.
 */
export async function followStream(client: MessagingClient, options: StreamOptions): Promise<StreamEnd> {

    const { signal } = options;
    const state = { cursor: options.cursor, serverRetryMs: undefined as number | undefined };
    let attempt = 0;
    while (!signal.aborted) {
        options.onState?.('connecting');
        const connection = await connectOnce(client, options, state).catch((error) => failedConnection(error, options));
        if ('end' in connection) {
            return connection.end;
        }

        if (connection.opened) {
            attempt = 0;
        }

        const { initialMs, maxMs } = options.backoff ?? { initialMs: state.serverRetryMs ?? 1000, maxMs: 60_000 };
        const delay = connection.retryAfterMs ?? Math.random() * Math.min(maxMs, initialMs * 2 ** attempt++);
        await sleep(delay, undefined, { signal }).catch(() => undefined);
    }

    return { code: 'aborted', message: 'The stream was stopped.' };
}

function failedConnection(error: unknown, options: StreamOptions): Connection {

    if (options.signal.aborted) {
        return { end: { code: 'aborted', message: 'The stream was stopped.' } };
    }

    if (error instanceof SignedOutError) {
        return { end: { code: 'invalid_token', message: error.message } };
    }

    if (error instanceof OfflineError) {
        options.onState?.('offline');
        return { opened: false };
    }

    if (error instanceof ApiError) {
        if (transientStatuses.has(error.status)) {
            return { opened: false, retryAfterMs: error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000 };
        }

        return { end: { code: error.code, message: error.message } };
    }

    throw error;
}

/** One connection: opened with the cursor so far, read until it breaks or closes. */
async function connectOnce(client: MessagingClient, options: StreamOptions, state: { cursor?: string; serverRetryMs?: number }): Promise<Connection> {

    const controller = new AbortController();
    const abort = () => controller.abort(options.signal.reason);
    options.signal.addEventListener('abort', abort);
    const idleMs = options.idleTimeoutMs ?? 45_000;
    let idle: NodeJS.Timeout | undefined;
    const stillAlive = () => {

        clearTimeout(idle);
        idle = setTimeout(() => controller.abort(new OfflineError(`The stream said nothing for ${idleMs} ms: reconnecting.`)), idleMs);
    };

    try {
        stillAlive();
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        if (state.cursor) {
            headers['last-event-id'] = state.cursor;
        }

        const response = await client.authorizedFetch(`${client.apiUrl}/stream`, { headers, signal: controller.signal, timeoutMs: 0 });
        if (!response.ok || !response.body) {
            throw await apiErrorOf(response);
        }

        const events: EventSourceMessage[] = [];
        const parser = createParser({ onEvent: (event) => events.push(event), onRetry: (ms) => (state.serverRetryMs = ms), onComment: stillAlive });
        const decoder = new TextDecoder();
        const reader = response.body.getReader();
        let opened = false;
        for (;;) {
            const { value, done } = await reader.read().catch((error) => {

                throw controller.signal.reason instanceof OfflineError ? controller.signal.reason : new OfflineError('The stream\'s connection broke.', { cause: error });
            });
            if (done) {
                return { opened };
            }

            parser.feed(decoder.decode(value, { stream: true }));
            for (let event = events.shift(); event; event = events.shift()) {
                clearTimeout(idle);
                const outcome = await handled(event, options, state);
                stillAlive();
                if (outcome === 'opened') {
                    opened = true;
                    options.onState?.('open');
                }
                else if (outcome) {
                    await reader.cancel().catch(() => undefined);
                    return 'end' in outcome ? outcome : { opened };
                }
            }
        }
    }
    finally {
        clearTimeout(idle);
        options.signal.removeEventListener('abort', abort);
        controller.abort();
    }
}

/** Handles one event: 'opened' for the stream's first, a Connection when it closes, nothing for a change. */
async function handled(event: EventSourceMessage, options: StreamOptions, state: { cursor?: string }): Promise<'opened' | Connection | undefined> {

    const data = JSON.parse(event.data);
    switch (event.event) {
        case 'ready':
            state.cursor = event.id ?? data.cursor;
            options.onReady?.(state.cursor!);
            return 'opened';
        case 'reset':
            await options.onReset(data as SyncReset);
            state.cursor = event.id ?? data.cursor;
            return 'opened';
        case 'close':
            return reconnectCodes.has(data.code) ? { opened: true } : { end: { code: data.code, message: data.message } };
        default:
            await options.onChange(data as Change);
            state.cursor = event.id ?? data.cursor;
            return undefined;
    }
}
