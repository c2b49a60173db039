import Https from 'https';
import type { Socket } from 'net';

import type { CheckedDestination } from './destination';

export interface SendLimits {
    connectTimeoutMs: number;
    responseTimeoutMs: number;
    /** Bytes of the response body read and kept; the rest is never read. */
    excerptBytes: number;
}

/** What one POST came to. A status code means a response arrived, whatever it was. */
export interface SendResult {
    statusCode: number | null;
    latencyMs: number;
    error: string | null;
    excerpt: string | null;
    /** The Location of a redirect (never followed) and a Retry-After, when given. */
    location?: string;
    retryAfter?: string;
}

/** Words for the connection failures an operator meets most. */
const errorWords: Readonly<Record<string, string>> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    EPIPE: 'connection closed while sending'
};

function describe(error: NodeJS.ErrnoException): string {

    return error.code && errorWords[error.code] ? `${errorWords[error.code]} (${error.code})` : error.message;
}

/**
 * The excerpt as text, bytes that are no UTF-8 shown as U+FFFD. So is NUL: valid UTF-8,
 * but no text column keeps it (SQLite's SQL text ends at it), and the outcome would not be written.
 */
function excerptText(bytes: Buffer): string {

    return bytes.toString('utf8').replaceAll('\0', '\uFFFD');
}

/**
 * POSTs `body` to the checked destination: the connection goes to its checked address,
 * with the URL's host for TLS (SNI, certificate) and in the Host header. Redirects are
 * not followed (https.request never follows them). Never rejects: failures are results.
 */
export function send(destination: CheckedDestination, headers: Record<string, string>, body: string, limits: SendLimits, agent: Https.Agent): Promise<SendResult> {

    const started = process.hrtime.bigint();
    const elapsedMs = () => Number((process.hrtime.bigint() - started) / 1_000_000n);

    return new Promise((resolve) => {

        let settled = false;
        const timers: NodeJS.Timeout[] = [];
        const finish = (result: Omit<SendResult, 'latencyMs'>) => {

            if (!settled) {
                settled = true;
                timers.forEach(clearTimeout);
                resolve({ ...result, latencyMs: elapsedMs() });
            }
        };

        const fail = (error: string) => finish({ statusCode: null, error, excerpt: null });
        const bodyBytes = Buffer.from(body);
        const request = Https.request({
            host: destination.address,
            port: destination.port,
            servername: destination.servername,
            path: `${destination.url.pathname}${destination.url.search}`,
            method: 'POST',
            agent,
            headers: { ...headers, host: destination.url.host, 'content-length': bodyBytes.length }
        });

        const giveUp = (milliseconds: number, what: string) => timers.push(setTimeout(() => {

            fail(`${what} within ${milliseconds} ms`);
            request.destroy();
        }, milliseconds));

        request.on('socket', (socket: Socket) => {

            // A kept-alive socket is already connected; a new one gets the connect timeout.
            if (!socket.connecting) {
                giveUp(limits.responseTimeoutMs, 'no response');
                return;
            }

            giveUp(limits.connectTimeoutMs, 'could not connect');
            socket.once('secureConnect', () => {

                clearTimeout(timers.shift());
                giveUp(limits.responseTimeoutMs, 'no response');
            });
        });

        request.on('error', (error) => fail(describe(error)));
        request.on('response', (response) => {

            const chunks: Buffer[] = [];
            let kept = 0;
            const done = () => finish({
                statusCode: response.statusCode ?? null,
                error: null,
                excerpt: excerptText(Buffer.concat(chunks)),
                location: response.headers.location,
                retryAfter: response.headers['retry-after']
            });

            response.on('data', (chunk: Buffer) => {

                const room = limits.excerptBytes - kept;
                chunks.push(room < chunk.length ? chunk.subarray(0, room) : chunk);
                kept += Math.min(room, chunk.length);
                if (kept >= limits.excerptBytes) {
                    // Enough: the rest is never read, and the connection is not reused.
                    done();
                    response.destroy();
                }
            });
            response.on('end', done);
            response.on('error', (error) => fail(describe(error)));
        });

        request.end(bodyBytes);
    });
}
