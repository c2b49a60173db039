import Fs from 'fs';

import { chromium, type Browser } from 'playwright-core';

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
