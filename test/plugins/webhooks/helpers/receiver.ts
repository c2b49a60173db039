import Https from 'https';
import type { IncomingHttpHeaders, ServerResponse } from 'http';
import type { AddressInfo } from 'net';

import { receiverHost, testPki } from '../../../helpers/test-pki';

export { receiverHost };

export interface ReceivedRequest {
    method: string;
    path: string;
    headers: IncomingHttpHeaders;
    body: string;
}

/** How the receiver answers one request. */
export type Responder = (response: ServerResponse, request: ReceivedRequest) => void;

export const answer = (status: number, headers: Record<string, string> = {}, body = ''): Responder => {

    return (response) => response.writeHead(status, headers).end(body);
};

/** Never answers (until the receiver closes): the sender's response timeout runs out. */
export const hang: Responder = () => undefined;

/** A real HTTPS server on 127.0.0.1 (or `host`), with a certificate from a test CA, that records every request. */
export class TestReceiver {

    readonly received: ReceivedRequest[] = [];
    private readonly responders: Responder[] = [];
    private waiters: (() => void)[] = [];

    private constructor(private readonly server: Https.Server, readonly ca: string) {}

    static async start(host = '127.0.0.1'): Promise<TestReceiver> {

        const { ca, key, cert } = await testPki();
        const server = Https.createServer({ key, cert });
        const receiver = new TestReceiver(server, ca);
        server.on('request', (request, response) => {

            const chunks: Buffer[] = [];
            request.on('data', (chunk: Buffer) => chunks.push(chunk));
            request.on('end', () => {

                const received = { method: request.method!, path: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
                receiver.received.push(received);
                (receiver.responders.shift() ?? answer(204))(response, received);
                receiver.waiters.forEach((wake) => wake());
            });
        });

        await new Promise<void>((resolve) => server.listen(0, host, resolve));
        return receiver;
    }

    get port(): number {

        return (this.server.address() as AddressInfo).port;
    }

    /** The URL of a path on this receiver, by its host name. */
    url(path = '/hook'): string {

        return `https://${receiverHost}:${this.port}${path}`;
    }

    /** How to answer the next requests, in order; then 204. */
    respondWith(...responders: Responder[]): void {

        this.responders.push(...responders);
    }

    /** Resolves once `count` requests (in all) have arrived; fails after `timeoutMs`. */
    async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedRequest[]> {

        const deadline = Date.now() + timeoutMs;
        while (this.received.length < count) {
            if (Date.now() > deadline) {
                throw new Error(`the receiver got ${this.received.length} requests, not ${count}, within ${timeoutMs} ms`);
            }

            await new Promise<void>((resolve) => {

                const timer = setTimeout(resolve, 100);
                this.waiters.push(() => {

                    clearTimeout(timer);
                    resolve();
                });
            });
            this.waiters = [];
        }

        return this.received.slice(0, count);
    }

    async close(): Promise<void> {

        this.server.closeAllConnections();
        await new Promise((resolve) => this.server.close(resolve));
    }
}
