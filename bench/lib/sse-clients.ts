/*
 * The clients of bench/sse-fanout.ts and bench/messaging-fanout.ts, in a child process of their own so that reading
 * thousands of streams does not share the server's event loop. Opens one raw HTTP stream per
 * key in `keys` (a key may appear several times), notes when each event id arrives on
 * each stream, and reports when asked. Talks to its parent over the IPC channel of
 * child_process.fork().
 */
import Http from 'http';

import { wallClockMs, type ClientsCommand, type ClientsMessage } from './sse-protocol';

const EVENT_ID = /(?:^|\n)id: (\S+)\n/g;

/** Arrival times by event id, one per stream that received it. */
const arrivals = new Map<string, number[]>();

function send(message: ClientsMessage): void {

    process.send!(message);
}

/** Opens one stream; resolves once its first bytes (the retry hint) arrived. */
function openStream(url: string, key: string, agent: Http.Agent): Promise<void> {

    return new Promise((resolve, reject) => {

        const request = Http.get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (response) => {

            if (response.statusCode !== 200) {
                reject(new Error(`stream refused with ${response.statusCode}`));
                return;
            }

            response.setEncoding('utf8');
            let tail = '';
            response.on('data', (chunk: string) => {

                const at = wallClockMs();
                resolve();
                // An event has arrived once its blank line has; the rest waits for the next chunk.
                const text = tail + chunk;
                const lastBreak = text.lastIndexOf('\n\n');
                const complete = lastBreak === -1 ? 0 : lastBreak + 2;
                tail = text.slice(complete);
                for (const match of text.slice(0, complete).matchAll(EVENT_ID)) {
                    const times = arrivals.get(match[1]) ?? [];
                    times.push(at);
                    arrivals.set(match[1], times);
                }
            });
            response.on('end', () => reject(new Error('stream ended by the server')));
        });

        request.on('error', reject);
    });
}

async function openAll({ url, keys, concurrentOpens }: Extract<ClientsCommand, { kind: 'open' }>): Promise<void> {

    const agent = new Http.Agent({ keepAlive: false, maxSockets: Infinity });
    const started = wallClockMs();
    let next = 0;
    const opener = async () => {

        while (next < keys.length) {
            await openStream(url, keys[next++], agent);
        }
    };

    await Promise.all(Array.from({ length: concurrentOpens }, opener));
    send({ kind: 'opened', streams: keys.length, seconds: (wallClockMs() - started) / 1000 });
}

process.on('message', (message: ClientsCommand) => {

    if (message.kind === 'open') {
        openAll(message).catch((error: Error) => send({ kind: 'failed', error: error.stack ?? error.message }));
    }
    else {
        send({ kind: 'arrivals', arrivals: Object.fromEntries(arrivals) });
    }
});
