import Fs from 'fs';
import Os from 'os';
import Path from 'path';

import Hapi from '@hapi/hapi';

import type { DesktopClient } from '../engine/desktop-client';
import { apiRoutes } from './api-routes';
import { PageStreams } from './events';
import { guardWindowServer, newSecret } from './guard';
import { pageRoutes } from './page-routes';
import { sendPath } from './send-route';

export interface WindowServer {
    /** The launch URL, which opens the window once: it carries the per-launch secret. */
    url: string;
    /** Resolves when the server has closed (by close(), or when its window was gone for `closeWhenIdleMs`). */
    closed: Promise<void>;
    close(): Promise<void>;
}

export interface WindowServerOptions {
    /** 0 (the default) takes a free port. */
    port?: number;
    /** Closes the server once no page has followed its events for this long (the window was closed). */
    closeWhenIdleMs?: number;
}

/**
 * The desktop window's server: the page and its JSON routes over `client`, on 127.0.0.1 only, guarded by a per-launch
 * secret (see guard.ts). While it is open the client watches the service, so that the page is live.
 */
export async function startWindowServer(client: DesktopClient, options: WindowServerOptions = {}): Promise<WindowServer> {

    const uploadsDir = await Fs.promises.mkdtemp(Path.join(Os.tmpdir(), 'family-records-window-'));
    const server = Hapi.server({ host: '127.0.0.1', port: options.port ?? 0, compression: false });
    const watching = new AbortController();
    let resolveClosed!: () => void;
    const closed = new Promise<void>((resolve) => {

        resolveClosed = resolve;
    });

    let closing: Promise<void> | undefined;
    const close = () => {

        closing ??= (async () => {

            watching.abort();
            streams.close();
            await server.stop({ timeout: 2000 });
            await Fs.promises.rm(uploadsDir, { recursive: true, force: true });
            resolveClosed();
        })();
        return closing;
    };

    const idle = options.closeWhenIdleMs === undefined ? undefined : { ms: options.closeWhenIdleMs, onIdle: () => void close() };
    const streams = new PageStreams(client, idle);
    const launchSecret = newSecret();
    guardWindowServer(server, launchSecret, [sendPath]);
    server.route([...pageRoutes(), ...apiRoutes(client, uploadsDir), streams.route()]);
    await server.start();

    streams.forward();
    void client.watch(watching.signal).then((end) => {

        if (end.code !== 'aborted') {
            streams.send('watch-ended', end);
        }
    }, (error: Error) => streams.send('watch-ended', { code: 'failed', message: error.message }));

    return { url: `http://127.0.0.1:${server.info.port}/?launch=${launchSecret}`, closed, close };
}
