import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import { chromium, type Browser, type Page } from 'playwright-core';

import { projectRoot } from '../../lib/config';
import { testServer, testVariant } from './server';

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

/** A browser test file's started test server and Chromium. */
export interface ChromiumAndServer {
    server: Server;
    browser: Browser;
    base: string;
    /** A whole-page screenshot, `name`.png in test/artifacts/<variant>/ (a folder per variant: the variants run at once). */
    screenshot(page: Page, name: string): Promise<Buffer>;
    /** Ends both. */
    close(): Promise<void>;
}

/** A whole-page screenshot of `page`, `name`.png in test/artifacts/<variant>/ (a folder per variant: the variants run at once). */
export function screenshot(page: Page, name: string): Promise<Buffer> {

    const folder = Path.join(projectRoot, 'test', 'artifacts', testVariant);
    Fs.mkdirSync(folder, { recursive: true });
    return page.screenshot({ path: Path.join(folder, `${name}.png`), fullPage: true });
}

export async function chromiumAndServer(): Promise<ChromiumAndServer> {

    const server = await testServer();
    await server.start();
    const browser = await launchChromium();
    return {
        server,
        browser,
        base: server.info.uri,
        screenshot,
        async close() {

            await browser.close();
            await server.stop();
        }
    };
}
