/*
 * The text/event-stream format (WHATWG HTML, "Server-sent events"): fields one a line,
 * a blank line ending each event. JSON never holds a raw line break, so data is one line.
 */

export interface ServerSentEvent {
    /** What the client sends back as Last-Event-ID when it reconnects. */
    id?: number | string;
    event: string;
    data: unknown;
}

export function sseEvent({ id, event, data }: ServerSentEvent): string {

    return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** How long the client waits before reconnecting after the connection drops. */
export function sseRetry(milliseconds: number): string {

    return `retry: ${milliseconds}\n\n`;
}

/** A comment: clients ignore it, proxies see traffic on an idle stream. */
export const sseHeartbeat = ': heartbeat\n\n';
