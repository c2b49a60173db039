import { performance } from 'perf_hooks';

/** What bench/sse-fanout.ts asks of its SSE clients (bench/lib/sse-clients.ts). */
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
