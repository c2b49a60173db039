import Net from 'net';

/** A TCP relay in front of a real server, which a test can cut, stall or freeze as if that server went away, and then restore. */
export interface TcpRelay {
    /** The port of 127.0.0.1 the relay listens on: point a client at it instead of the server. */
    readonly port: number;
    /** Destroys every open connection and stops listening: a connection is then refused, as by a stopped server. */
    cut(): Promise<void>;
    /** Destroys every open connection and holds new ones without a byte either way, as a host that stopped answering. */
    stall(): void;
    /**
     * Stops carrying bytes on every open connection, both ways, and keeps it open: a server that vanished
     * without a reset (a power cut, a failover). New connections are relayed as before.
     */
    freeze(): void;
    /** Relays again, on the same port, after dropping the connections that carried nothing. */
    restore(): Promise<void>;
    /** Cuts the relay for good. */
    close(): Promise<void>;
}

const listening = (server: Net.Server, port: number) => new Promise<void>((resolve, reject) => {

    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {

        server.off('error', reject);
        resolve();
    });
});

/** A relay on a port of its own to `port` of `host`, piping bytes both ways. */
export async function tcpRelay(port: number, host = '127.0.0.1'): Promise<TcpRelay> {

    const open = new Set<Net.Socket>();
    const silent = new Set<Net.Socket>();              // open but carrying nothing: held while stalled, or frozen
    let stalled = false;
    const keep = (socket: Net.Socket) => {

        open.add(socket);
        socket.on('error', () => undefined);                // a reset: its close ends the other side too
        socket.on('close', () => {

            open.delete(socket);
            silent.delete(socket);
        });
    };

    const accept = (client: Net.Socket) => {

        keep(client);
        if (stalled) {
            silent.add(client);
            return;
        }

        const upstream = Net.connect(port, host);
        keep(upstream);
        client.pipe(upstream);
        upstream.pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
    };

    const dropOpen = () => {

        for (const socket of open) {
            socket.destroy();
        }
    };

    let server = Net.createServer(accept);
    await listening(server, 0);
    const relayPort = (server.address() as Net.AddressInfo).port;

    const cut = async () => {

        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        dropOpen();
        await closed;
    };

    return {
        port: relayPort,
        cut,
        stall() {

            stalled = true;
            dropOpen();
        },
        freeze() {

            for (const socket of open) {
                socket.unpipe();
                socket.pause();
                silent.add(socket);
            }
        },
        async restore() {

            // The connections made since, which carry bytes, stay: the server's pool may hold them.
            stalled = false;
            for (const socket of silent) {
                socket.destroy();
            }

            if (!server.listening) {
                server = Net.createServer(accept);
                await listening(server, relayPort);
            }
        },
        async close() {

            if (server.listening) {
                await cut();
            }
        }
    };
}
