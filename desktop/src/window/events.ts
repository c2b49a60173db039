import { PassThrough } from 'stream';

import type { ServerRoute } from '@hapi/hapi';

import type { DesktopClient } from '../engine/desktop-client';

/** The engine's events the page follows, carried to it as they are. */
const engineEvents = ['change', 'outbox', 'conflict', 'online', 'upload-progress'] as const;

/** The open event streams of the page(s): what the window server writes to, and ends when it closes. */
export class PageStreams {

    private readonly open = new Set<PassThrough>();
    private idleTimer: NodeJS.Timeout | undefined;

    /** `onIdle` is called when the last page has been gone for `idleMs` (its window was closed). */
    constructor(private readonly client: DesktopClient, private readonly idle?: { ms: number; onIdle(): void }) { }

    route(): ServerRoute {

        return {
            method: 'GET',
            path: '/events',
            handler: (request, h) => {

                const stream = this.add();
                request.raw.req.once('close', () => this.remove(stream));
                return h.response(stream)
                    .type('text/event-stream')
                    .header('Connection', 'keep-alive');
            }
        };
    }

    /** Writes one event to every page. */
    send(name: string, data: unknown) {

        const text = `event: ${name}\ndata: ${JSON.stringify(data ?? null)}\n\n`;
        for (const stream of this.open) {
            stream.write(text);
        }
    }

    /** Follows the engine's events from now on, until close(). */
    forward() {

        for (const name of engineEvents) {
            this.client.on(name, this.forwarders[name]);
        }
    }

    close() {

        clearTimeout(this.idleTimer);
        for (const name of engineEvents) {
            this.client.off(name, this.forwarders[name]);
        }

        for (const stream of this.open) {
            stream.end();
        }

        this.open.clear();
    }

    private readonly forwarders = Object.fromEntries(engineEvents.map((name) => [name, (data: unknown) => this.send(name, data)])) as
        Record<typeof engineEvents[number], (data: unknown) => void>;

    private add() {

        clearTimeout(this.idleTimer);
        const stream = new PassThrough();
        // The state the events change from, first on the same stream, so that none falls between a read and the events.
        stream.write(`event: online\ndata: ${JSON.stringify(this.client.online)}\n\n`);
        this.open.add(stream);
        return stream;
    }

    private remove(stream: PassThrough) {

        stream.end();
        this.open.delete(stream);
        if (this.open.size === 0 && this.idle) {
            const { ms, onIdle } = this.idle;
            this.idleTimer = setTimeout(onIdle, ms);
        }
    }
}
