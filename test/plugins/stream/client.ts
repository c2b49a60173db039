import Http from 'http';

import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { testRedisUrl, testServer, testVariant, type FamilyFixture } from '../../helpers/server';

/** One event as a client parses it from the text/event-stream bytes. */
export interface ReceivedEvent {
    id?: string;
    event: string;
    /** The data line, parsed as JSON. */
    data: any;
}

const DEFAULT_WAIT_MS = 5000;

/** Resolves once `condition` holds, polling; fails naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {

    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
        if (Date.now() > deadline) {
            throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
        }

        await new Promise((resolve) => setTimeout(resolve, 10));
    }
}

/**
 * A change stream read over real HTTP with Node's own client, byte for byte: what the
 * server wrote (`text`), parsed into events and comments as an EventSource would.
 */
export class RawStream {
    text = '';
    readonly events: ReceivedEvent[] = [];
    readonly comments: string[] = [];
    retry?: number;
    finished = false;
    /** What came after the last complete block. */
    private pending = '';

    private constructor(readonly response: Http.IncomingMessage) {

        response.setEncoding('utf8');
        response.on('data', (chunk: string) => this.received(chunk));
        response.on('close', () => {

            this.finished = true;
        });
    }

    /** Opens a stream (the change stream unless `path` says another); resolves with the response as soon as its headers arrive (any status). */
    static open(server: Server, key: string, options: { headers?: Record<string, string>; query?: string; path?: string } = {}): Promise<RawStream> {

        return new Promise((resolve, reject) => {

            const request = Http.get({
                host: '127.0.0.1',
                port: server.info.port,
                path: `${options.path ?? '/api/v1/events/stream'}${options.query ? `?${options.query}` : ''}`,
                headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip, deflate', ...options.headers }
            }, (response) => resolve(new RawStream(response)));

            request.on('error', reject);
        });
    }

    get statusCode(): number {

        return this.response.statusCode!;
    }

    /** The events that carry a change (not reset or close). */
    get changes(): ReceivedEvent[] {

        return this.events.filter((event) => event.event !== 'reset' && event.event !== 'close');
    }

    /** Waits until `count` change events have arrived; returns them. */
    async nextChanges(count: number, timeoutMs?: number): Promise<ReceivedEvent[]> {

        await until(() => this.changes.length >= count, `${count} change events (have ${this.changes.length}: ${this.text.slice(-500)})`, timeoutMs);
        return this.changes.slice(0, count);
    }

    /** Waits for the first event named `name`. */
    async eventNamed(name: string, timeoutMs?: number): Promise<ReceivedEvent> {

        await until(() => this.events.some((event) => event.event === name), `event ${name} (received: ${this.text.slice(-500)})`, timeoutMs);
        return this.events.find((event) => event.event === name)!;
    }

    /** Waits until the server has closed the connection. */
    async end(timeoutMs?: number): Promise<void> {

        await until(() => this.finished, 'the end of the stream', timeoutMs);
    }

    pause(): void {

        this.response.pause();
    }

    resume(): void {

        this.response.resume();
    }

    /** The client goes away. */
    close(): void {

        this.response.destroy();
    }

    /** Parses every complete block (ended by a blank line) received so far. */
    private received(chunk: string): void {

        this.text += chunk;
        // Blocks are cut from `pending`, never from `text`: a slice keeps its whole source string alive.
        const blocks = (this.pending + chunk).split('\n\n');
        this.pending = blocks.pop()!;
        blocks.forEach((block) => this.parseBlock(block));
    }

    private parseBlock(block: string): void {

        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
                this.comments.push(line.slice(1).trim());
                continue;
            }

            const colon = line.indexOf(':');
            fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
        }

        if (fields.retry !== undefined) {
            this.retry = Number(fields.retry);
        }

        if (fields.data !== undefined) {
            this.events.push({ ...(fields.id !== undefined ? { id: fields.id } : {}), event: fields.event ?? 'message', data: JSON.parse(fields.data) });
        }
    }
}

/** A test server listening on a free port of 127.0.0.1 (streams need real HTTP). */
export async function listeningServer(options: Parameters<typeof testServer>[0] = {}): Promise<Server> {

    const server = await testServer(options);
    await server.start();
    return server;
}

/** A stream of the family's changes from `server`, answered 200 and past its retry hint: ready for events. */
export async function openedStream(server: Server, family: FamilyFixture): Promise<RawStream> {

    const stream = await RawStream.open(server, family.key);
    expect(stream.statusCode).to.equal(200);
    await until(() => stream.retry !== undefined, 'the retry hint');
    return stream;
}

/** The name of a suite on one aspect of the stream, with the stores it runs on. */
export function streamSuiteTitle(aspect: string): string {

    return `GET /api/v1/events/stream: ${aspect} (${testVariant}${testRedisUrl ? ' + redis' : ''})`;
}
