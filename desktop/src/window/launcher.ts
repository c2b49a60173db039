import ChildProcess from 'child_process';
import Fs from 'fs';
import Path from 'path';

import type { DesktopClient } from '../engine/desktop-client';
import { urlOpener } from '../open-url';
import { startWindowServer } from './server';

/** How long the server waits for its window to come back (a reload) before it takes the window as closed. */
const windowGoneMs = 15_000;

const chromiumNames = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'microsoft-edge-stable'];

/** Where the browsers with an app mode are installed outside PATH. */
function installedBrowsers(): string[] {

    if (process.platform === 'darwin') {
        return ['Google Chrome', 'Chromium', 'Microsoft Edge'].map((name) => `/Applications/${name}.app/Contents/MacOS/${name}`);
    }

    if (process.platform === 'win32') {
        const roots = [process.env.PROGRAMFILES, process.env['PROGRAMFILES(X86)'], process.env.LOCALAPPDATA].filter((root): root is string => !!root);
        return roots.flatMap((root) => [Path.join(root, 'Google', 'Chrome', 'Application', 'chrome.exe'), Path.join(root, 'Microsoft', 'Edge', 'Application', 'msedge.exe')]);
    }

    return [];
}

/** The first Chromium-like browser found on PATH, or installed where its platform puts it. */
export function findAppBrowser(): string | undefined {

    const extensions = process.platform === 'win32' ? ['.exe', ''] : [''];
    const onPath = (process.env.PATH ?? '').split(Path.delimiter).filter(Boolean)
        .flatMap((dir) => chromiumNames.flatMap((name) => extensions.map((extension) => Path.join(dir, name + extension))));

    return [...onPath, ...installedBrowsers()].find((file) => {

        try {
            Fs.accessSync(file, Fs.constants.X_OK);
            return Fs.statSync(file).isFile();
        }
        catch {
            return false;
        }
    });
}

export interface OpenedWindow {
    kind: 'configured' | 'app' | 'browser';
    command: string;
}

/**
 * Opens `url` in an app window: the command of $FAMILY_RECORDS_DESKTOP_BROWSER if set; else Chromium, Chrome or Edge in
 * its --app mode, with a browser profile of its own under the desktop profile (`profileDir`/window); else the default
 * browser. The browser runs on its own: this process does not wait for it.
 */
export function openAppWindow(url: string, options: { profileDir: string }): OpenedWindow {

    const configured = process.env.FAMILY_RECORDS_DESKTOP_BROWSER;
    const appBrowser = configured ? undefined : findAppBrowser();
    let opened: OpenedWindow;
    let args: string[];
    if (appBrowser) {
        const browserProfile = Path.join(options.profileDir, 'window');
        Fs.mkdirSync(browserProfile, { recursive: true, mode: 0o700 });
        opened = { kind: 'app', command: appBrowser };
        args = [`--app=${url}`, `--user-data-dir=${browserProfile}`, '--no-first-run'];
    }
    else {
        const opener = urlOpener();
        opened = { kind: configured ? 'configured' : 'browser', command: opener.program };
        args = [...opener.args, url];
    }

    const child = ChildProcess.spawn(opened.command, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => { });           // a browser that cannot start leaves the URL, which the caller shows
    child.unref();
    return opened;
}

/**
 * The desktop window of `client`: starts its server, opens the window, and resolves once the window has been
 * closed (or `signal` aborts). `onOpen` learns the launch URL, for a person whose browser did not open.
 */
export async function openDesktopWindow(client: DesktopClient, options: { signal?: AbortSignal; onOpen?(url: string, opened: OpenedWindow): void } = {}): Promise<void> {

    const window = await startWindowServer(client, { closeWhenIdleMs: windowGoneMs });
    if (options.signal?.aborted) {
        await window.close();
        return;
    }

    options.signal?.addEventListener('abort', () => void window.close(), { once: true });
    const opened = openAppWindow(window.url, { profileDir: client.profile.dir });
    options.onOpen?.(window.url, opened);
    await window.closed;
}
