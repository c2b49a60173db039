import { spawn } from 'child_process';

/** The system's opener of URLs, where it is not xdg-open. */
const platformOpeners: Partial<Record<NodeJS.Platform, { program: string; args: string[] }>> = {
    darwin: { program: 'open', args: [] },
    // Not cmd's `start`, which would split the URL at its `&`.
    win32: { program: 'rundll32', args: ['url.dll,FileProtocolHandler'] }
};

/** The program that opens a URL in the person's browser, and its arguments before the URL. */
export function urlOpener(): { program: string; args: string[] } {

    // A program of the person's choosing, run with the URL as its one argument (tests point it at a script).
    const chosen = process.env.FAMILY_RECORDS_DESKTOP_BROWSER;
    if (chosen) {
        return { program: chosen, args: [] };
    }

    return platformOpeners[process.platform] ?? { program: 'xdg-open', args: [] };
}

/**
 * Opens `url` in the browser without waiting for the browser to close: resolves once the opener has started, or
 * with the reason it could not (no such program), so that the caller can tell the person to open it themselves.
 */
export function openUrl(url: string): Promise<{ opened: true } | { opened: false; reason: string }> {

    const { program, args } = urlOpener();
    return new Promise((resolve) => {

        const child = spawn(program, [...args, url], { stdio: 'ignore', detached: process.platform !== 'win32' });
        child.once('spawn', () => {

            child.unref();
            resolve({ opened: true });
        });

        child.once('error', (error) => resolve({ opened: false, reason: `${program}: ${error.message}` }));
    });
}
