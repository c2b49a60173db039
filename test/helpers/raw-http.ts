import Net from 'net';

import type { Server } from '@hapi/hapi';

export interface RawExchangeOptions {
    /** Written once the server has answered `100 Continue`, as a client that sent `Expect: 100-continue` does. */
    bodyAfterContinue?: string | Buffer;
}

/** An answer read off the wire: its status line, its headers (names in lower case) and its body. */
export interface RawAnswer {
    statusLine: string;
    headers: Record<string, string>;
    body: string;
}

const continueLine = 'HTTP/1.1 100 Continue\r\n\r\n';

/**
 * Writes `request` as it is on a connection of its own to the listening server and resolves to every byte
 * the server sent until it closed the connection (send `Connection: close` for an answer that keeps it open).
 * Bytes no HTTP client would send are what these tests need, hence a socket and not fetch().
 */
export function rawExchange(server: Server, request: string | Buffer, options: RawExchangeOptions = {}): Promise<string> {

    return new Promise((resolve, reject) => {

        const socket = Net.connect(Number(server.info.port), '127.0.0.1');
        let received = '';
        let bodySent = false;
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => {

            received += chunk;
            if (options.bodyAfterContinue !== undefined && !bodySent && received.startsWith(continueLine)) {
                bodySent = true;
                socket.write(options.bodyAfterContinue);
            }
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(received));
        socket.setTimeout(10_000, () => socket.destroy(new Error(`No end of the answer in 10 s; received so far: ${received.slice(0, 200)}`)));
        socket.write(request);
    });
}

/** The one answer of an exchange, an interim `100 Continue` before it removed. */
export function parsedAnswer(received: string): RawAnswer {

    const text = received.startsWith(continueLine) ? received.slice(continueLine.length) : received;
    const end = text.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    return { statusLine, headers, body: text.slice(end + 4) };
}
