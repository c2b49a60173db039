import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import { chromium, type Browser } from 'playwright-core';

import { projectRoot } from '../../lib/config';
import { testServer } from './server';

/** Debian's Chromium, which .ci/run installs (playwright-core never downloads a browser of its own). */
export const chromiumPath = '/usr/bin/chromium';

/** Whether the browser tests can run here; they are skipped, saying why, when not. */
export const chromiumAvailable = Fs.existsSync(chromiumPath);
if (!chromiumAvailable) {
    process.stdout.write(`\nSkipping the browser tests: ${chromiumPath} is missing (.ci/run installs Debian's chromium).\n`);
}

/** Headless, with no background networking (this machine's network is closed); every launch gets a fresh, empty profile of its own. */
export function launchChromium(): Promise<Browser> {

    return chromium.launch({
        executablePath: chromiumPath,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
    });
}

/** Where a browser test's screenshots go: a folder per test variant, since the variants run at once. */
export function screenshotFolder(variant: string): string {

    const folder = Path.join(projectRoot, 'test', 'artifacts', variant);
    Fs.mkdirSync(folder, { recursive: true });
    return folder;
}

/** A started test server and a Chromium for a browser test file; `close()` ends both. */
export async function chromiumAndServer(): Promise<{ server: Server; browser: Browser; base: string; close(): Promise<void> }> {

    const server = await testServer();
    await server.start();
    const browser = await launchChromium();
    return {
        server,
        browser,
        base: server.info.uri,
        async close() {

            await browser.close();
            await server.stop();
        }
    };
}
