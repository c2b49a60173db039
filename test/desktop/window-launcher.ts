import Fs from 'fs';
import Path from 'path';

import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { openAppWindow, openDesktopWindow, startWindowServer, type DesktopClient } from 'family-records-desktop';
import type { Browser } from 'playwright-core';

import { chromiumAvailable, launchChromium } from '../helpers/chromium';
import { connectDesktopClient, desktopService, type DesktopService } from '../helpers/desktop-service';
import { scratchDirectory } from '../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after, afterEach } = lab;

/** A stand-in for a browser: an executable `name` in `dir` that writes the arguments it was given, one a line, to `record`. */
function fakeBrowser(dir: string, name: string, record: string): string {

    const file = Path.join(dir, name);
    Fs.writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}.tmp' && /bin/mv '${record}.tmp' '${record}'\n`, { mode: 0o700 });
    return file;
}

/** The arguments the stand-in recorded, once it has run (it runs detached). */
async function recordedArgs(record: string): Promise<string[]> {

    for (let waited = 0; !Fs.existsSync(record); waited += 20) {
        if (waited > 5000) {
            throw new Error('The browser command did not run');
        }

        await new Promise((resolve) => setTimeout(resolve, 20));
    }

    return Fs.readFileSync(record, 'utf8').trim().split('\n');
}

describe('desktop window: opening it', { skip: process.platform === 'win32', timeout: 60_000 }, () => {

    let service: DesktopService;
    let client: DesktopClient;
    let browser: Browser | undefined;
    const saved = { path: process.env.PATH, browser: process.env.FAMILY_RECORDS_DESKTOP_BROWSER };

    before(async () => {

        service = await desktopService();
        client = await connectDesktopClient(service, await service.member());
        browser = chromiumAvailable ? await launchChromium() : undefined;
    });

    afterEach(() => {

        process.env.PATH = saved.path;
        if (saved.browser === undefined) {
            delete process.env.FAMILY_RECORDS_DESKTOP_BROWSER;
        }
        else {
            process.env.FAMILY_RECORDS_DESKTOP_BROWSER = saved.browser;
        }
    });

    after(async () => {

        await browser?.close();
        await client?.close();
        await service?.stop();
    });

    it('runs Chromium from PATH in its app mode, with a browser profile of its own under the desktop profile', async () => {

        delete process.env.FAMILY_RECORDS_DESKTOP_BROWSER;
        const bin = scratchDirectory();
        const record = Path.join(bin, 'args');
        const chromium = fakeBrowser(bin, 'chromium', record);
        process.env.PATH = bin;

        const opened = openAppWindow('http://127.0.0.1:1234/?launch=abc', { profileDir: client.profile.dir });
        expect(opened).to.equal({ kind: 'app', command: chromium });
        expect(await recordedArgs(record)).to.equal(['--app=http://127.0.0.1:1234/?launch=abc', `--user-data-dir=${Path.join(client.profile.dir, 'window')}`, '--no-first-run']);
        expect(Fs.statSync(Path.join(client.profile.dir, 'window')).mode & 0o777).to.equal(0o700);
    });

    it('falls back to the default browser when no Chromium, Chrome or Edge is found', { skip: process.platform !== 'linux' }, async () => {

        delete process.env.FAMILY_RECORDS_DESKTOP_BROWSER;
        const bin = scratchDirectory();
        const record = Path.join(bin, 'args');
        fakeBrowser(bin, 'xdg-open', record);
        process.env.PATH = bin;

        expect(openAppWindow('http://127.0.0.1:1234/?launch=abc', { profileDir: client.profile.dir })).to.equal({ kind: 'browser', command: 'xdg-open' });
        expect(await recordedArgs(record)).to.equal(['http://127.0.0.1:1234/?launch=abc']);
    });

    it('opens the window with FAMILY_RECORDS_DESKTOP_BROWSER, serves it until asked to stop, then resolves', { skip: !chromiumAvailable }, async () => {

        const bin = scratchDirectory();
        const record = Path.join(bin, 'args');
        process.env.FAMILY_RECORDS_DESKTOP_BROWSER = fakeBrowser(bin, 'open-window', record);
        const stop = new AbortController();
        let shown = '';
        const running = openDesktopWindow(client, { signal: stop.signal, onOpen: (url) => (shown = url) });

        const [url] = await recordedArgs(record);
        expect(url).to.equal(shown);
        const page = await browser!.newPage();
        await page.goto(url);
        await page.locator('#connection:text-is("Online")').waitFor();
        await page.close();

        stop.abort();
        await running;
        await expect(fetch(url)).to.reject();
    });

    it('closes once its window has been gone for a while, when asked to', { skip: !chromiumAvailable }, async () => {

        const window = await startWindowServer(client, { closeWhenIdleMs: 2000 });
        const page = await browser!.newPage();
        await page.goto(window.url);
        await page.locator('#connection:text-is("Online")').waitFor();
        await page.reload();
        await page.locator('#connection:text-is("Online")').waitFor();
        await page.close();
        await window.closed;
    });
});
