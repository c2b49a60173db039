import Net from 'net';
import { Worker } from 'worker_threads';

// Listens, tells the test its port, then blocks its thread until woken: its event loop never accepts a connection.
const listenerThread = `
const { workerData, parentPort } = require('worker_threads');
const server = require('net').createServer();
server.listen({ host: workerData.host, port: workerData.port, backlog: 1 }, () => {

    parentPort.postMessage(server.address().port);
    Atomics.wait(workerData.wake, 0, 0);
    server.close();
});
`;

/**
 * A port on an address where a connection is never taken, as behind a firewall that drops packets: a
 * listener that never accepts, whose queue is filled, so the kernel ignores further SYNs and a connect
 * waits until the connecting side gives up. (A port where nothing listens refuses at once instead.)
 */
export class SilentListener {

    private constructor(private readonly thread: Worker, private readonly wake: Int32Array, private readonly fillers: Net.Socket[]) {}

    static async start(host: string, port: number): Promise<SilentListener> {

        const wake = new Int32Array(new SharedArrayBuffer(4));
        const thread = new Worker(listenerThread, { eval: true, workerData: { host, port, wake } });
        await new Promise((resolve, reject) => thread.once('message', resolve).once('error', reject));

        // Connections the kernel completes for the listener on its own, until the queue is full and one waits.
        const fillers: Net.Socket[] = [];
        for (let connected = true; connected;) {
            const filler = Net.connect(port, host);
            fillers.push(filler);
            connected = await new Promise<boolean>((resolve) => {

                filler.once('connect', () => resolve(true));
                setTimeout(() => resolve(false), 300);
            });
        }

        return new SilentListener(thread, wake, fillers);
    }

    async close(): Promise<void> {

        this.fillers.forEach((filler) => filler.destroy());
        Atomics.store(this.wake, 0, 1);
        Atomics.notify(this.wake, 0);
        await this.thread.terminate();
    }
}
