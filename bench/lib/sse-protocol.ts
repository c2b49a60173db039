import type ChildProcess from 'child_process';
import { once } from 'events';
import { performance } from 'perf_hooks';

/** What bench/sse-fanout.ts and bench/messaging-fanout.ts ask of their SSE clients (bench/lib/sse-clients.ts). */
export type ClientsCommand =
    | { kind: 'open'; url: string; keys: string[]; concurrentOpens: number }
    | { kind: 'report' };

/** What the clients answer. */
export type ClientsMessage =
    | { kind: 'opened'; streams: number; seconds: number }
    /** Arrival times by event id, one per stream that received it. */
    | { kind: 'arrivals'; arrivals: Record<string, number[]> }
    | { kind: 'failed'; error: string };

/** A time comparable across processes on this machine: milliseconds since the epoch, with fractions. */
export const wallClockMs = () => performance.timeOrigin + performance.now();

/** The clients' next message of `kind`; a failure in the child fails the run. */
export async function clientsMessage<K extends ClientsMessage['kind']>(clients: ChildProcess.ChildProcess, kind: K): Promise<Extract<ClientsMessage, { kind: K }>> {

    for (;;) {
        const [message] = await once(clients, 'message') as [ClientsMessage];
        if (message.kind === 'failed') {
            throw new Error(`SSE clients: ${message.error}`);
        }

        if (message.kind === kind) {
            return message as Extract<ClientsMessage, { kind: K }>;
        }
    }
}

/** The clients' arrivals once each of `ids` has reached all `streamCount` streams, or `timeoutMs` has passed. */
export async function settledArrivals(clients: ChildProcess.ChildProcess, ids: readonly string[], streamCount: number, timeoutMs: number): Promise<Record<string, number[]>> {

    let arrivals: Record<string, number[]> = {};
    const complete = () => ids.every((id) => arrivals[id]?.length === streamCount);
    for (const deadline = Date.now() + timeoutMs; !complete() && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
        clients.send({ kind: 'report' } satisfies ClientsCommand);
        arrivals = (await clientsMessage(clients, 'arrivals')).arrivals;
    }

    return arrivals;
}
