import Net from 'net';

/** A port nobody listens on now: the one the OS gave a listener that is closed again. */
export function freePort(): Promise<number> {

    return new Promise((resolve, reject) => {

        const probe = Net.createServer();
        probe.on('error', reject);
        probe.listen(0, '127.0.0.1', () => {

            const { port } = probe.address() as Net.AddressInfo;
            probe.close(() => resolve(port));
        });
    });
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
