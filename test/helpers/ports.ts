import Net from 'net';

/**
 * Where freePort() looks: below Linux's ephemeral range (32768–60999), which the kernel hands out to every
 * outgoing connection and to listen(0), so that no connection or listener of another process (the other test
 * variant runs at once) takes the port between the probe and its use.
 */
const lowest = 20000;
const highest = 32767;

function listenable(port: number): Promise<boolean> {

    return new Promise((resolve, reject) => {

        const probe = Net.createServer();
        probe.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
        probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
}

/** A port nobody listens on now: one of 127.0.0.1 that a listener could take and is closed again. */
export async function freePort(): Promise<number> {

    for (;;) {
        const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
        if (await listenable(port)) {
            return port;
        }
    }
}

/** Whether something accepts connections on `port` of 127.0.0.1 now. */
export function accepts(port: number): Promise<boolean> {

    return new Promise((resolve) => {

        const socket = Net.connect(port, '127.0.0.1', () => {

            socket.destroy();
            resolve(true);
        });
        socket.on('error', () => resolve(false));
    });
}
