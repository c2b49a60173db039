import Https from 'https';
import type { Socket } from 'net';

import type { CheckedDestination } from './destination';

export interface SendLimits {
    /** For the connection, the addresses tried all included, and its TLS handshake. */
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

/** How one address's turn ended: no connection was made (the next address may take it), or with the result. */
type Turn = { connected: false; error: string } | { connected: true; result: Omit<SendResult, 'latencyMs'> };

/** A message per address when there were several, so the log says what each one did. */
function noConnection(failures: [address: string, error: string][]): string {

    return failures.length === 1 ? failures[0][1] : failures.map(([address, error]) => `${address}: ${error}`).join('; ');
}

/**
 * POSTs `body` to the checked destination, trying its addresses in turn: one that refuses the connection or
 * does not take it within its share of the connect timeout (what is left of it, split among the addresses
 * not yet tried) gives way to the next. Once a connection is made its outcome is the attempt's, whatever it
 * is: the request may have reached the receiver, which another address would then get twice. Every
 * connection goes to a checked address, with the URL's host for TLS (SNI, certificate) and in the Host
 * header. Redirects are not followed (https.request never follows them). Never rejects: failures are results,
 * with the address the request went to (when none took the connection, the last one tried).
 */
export async function send(destination: CheckedDestination, headers: Record<string, string>, body: string, limits: SendLimits,
    agent: Https.Agent): Promise<SendResult & { address: string }> {

    const started = performance.now();
    const connectDeadline = started + limits.connectTimeoutMs;
    const latencyMs = () => Math.round(performance.now() - started);
    const bodyBytes = Buffer.from(body);
    const failures: [address: string, error: string][] = [];
    for (const [index, address] of destination.addresses.entries()) {
        const connectWithinMs = Math.max(1, Math.ceil((connectDeadline - performance.now()) / (destination.addresses.length - index)));
        const turn = await postTo(address, destination, headers, bodyBytes, { ...limits, connectWithinMs, connectDeadline }, agent);
        if (turn.connected) {
            return { ...turn.result, address, latencyMs: latencyMs() };
        }

        failures.push([address, turn.error]);
    }

    return { address: failures[failures.length - 1][0], statusCode: null, error: noConnection(failures), excerpt: null, latencyMs: latencyMs() };
}

interface TurnLimits extends SendLimits {
    /** How long this address has to take the TCP connection. */
    connectWithinMs: number;
    /** When the TLS handshake must be done by (performance.now() time): the end of the whole connect timeout. */
    connectDeadline: number;
}

/** The POST over a connection to one address (a kept-alive one when the agent holds it). */
function postTo(address: string, destination: CheckedDestination, headers: Record<string, string>, bodyBytes: Buffer, limits: TurnLimits, agent: Https.Agent): Promise<Turn> {

    return new Promise((resolve) => {

        let connected = false;
        let settled = false;
        const timers: NodeJS.Timeout[] = [];
        const finish = (turn: Turn) => {

            if (!settled) {
                settled = true;
                timers.forEach(clearTimeout);
                resolve(turn);
            }
        };

        const fail = (error: string) => finish(connected ? { connected, result: { statusCode: null, error, excerpt: null } } : { connected, error });
        const request = Https.request({
            host: address,
            port: destination.port,
            servername: destination.servername,
            path: `${destination.url.pathname}${destination.url.search}`,
            method: 'POST',
            agent,
            headers: { ...headers, host: destination.url.host, 'content-length': bodyBytes.length }
        });

        const giveUp = (milliseconds: number, error: string) => timers.push(setTimeout(() => {

            fail(error);
            request.destroy();
        }, milliseconds));

        request.on('socket', (socket: Socket) => {

            // A kept-alive socket is already connected; a new one gets this address's share of the connect timeout.
            if (!socket.connecting) {
                connected = true;
                giveUp(limits.responseTimeoutMs, `no response within ${limits.responseTimeoutMs} ms`);
                return;
            }

            giveUp(limits.connectWithinMs, `could not connect within ${limits.connectWithinMs} ms`);
            socket.once('connect', () => {

                connected = true;
                clearTimeout(timers.shift());
                giveUp(Math.max(limits.connectDeadline - performance.now(), 0), `could not connect within ${limits.connectTimeoutMs} ms (the TLS handshake did not finish)`);
            });
            socket.once('secureConnect', () => {

                clearTimeout(timers.shift());
                giveUp(limits.responseTimeoutMs, `no response within ${limits.responseTimeoutMs} ms`);
            });
        });

        request.on('error', (error) => fail(describe(error)));
        request.on('response', (response) => {

            const chunks: Buffer[] = [];
            let kept = 0;
            const done = () => finish({
                connected: true,
                result: {
                    statusCode: response.statusCode ?? null,
                    error: null,
                    excerpt: excerptText(Buffer.concat(chunks)),
                    location: response.headers.location,
                    retryAfter: response.headers['retry-after']
                }
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
