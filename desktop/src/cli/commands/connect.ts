import { DesktopClient } from '../../engine/desktop-client';
import { normalizeServerUrl } from '../../sdk/discovery';
import { command } from '../command';
import { CliError, UsageError } from '../errors';
import { untilInterrupted } from '../interrupt';
import { openUrl } from '../../open-url';
import type { Output } from '../output';

const usage = 'connect <server-url> [--device-name NAME] [--no-browser] [--insecure]';

/** The server's address, or a usage error in the discovery's own words (not a URL, http to another machine). */
function serverUrlOf(input: string, allowInsecure: boolean): string {

    try {
        return normalizeServerUrl(input, { allowInsecure });
    }
    catch (error) {
        throw new UsageError((error as Error).message, usage);
    }
}

/** The code and where to type it, as `gh auth login` shows them; then the browser, unless told not to. */
async function showCode(code: { user_code: string; verification_uri: string; verification_uri_complete: string }, output: Output, browser: boolean): Promise<void> {

    // With --json, stdout holds the one JSON document of the result: what a person reads goes to stderr.
    const say = (line: string) => (output.json ? output.note(line) : output.text(line));
    say(`! First copy your one-time code: ${code.user_code}`);
    if (!browser) {
        say(`Open ${code.verification_uri} in your browser and enter the code.`);
        return;
    }

    say(`Open ${code.verification_uri} in your browser (opening it now…)`);
    const opened = await openUrl(code.verification_uri_complete);
    if (!opened.opened) {
        output.note(`could not open a browser (${opened.reason}): open ${code.verification_uri} yourself and enter the code.`);
    }
}

export const connectCommand = command({
    usage,
    summary: 'connect this computer to your account on a Family Records service',
    description: [
        'Signs this computer in through your browser (the device flow): it shows a one-time code and opens the',
        'service\'s page where you approve it, then waits until you have. The account becomes the current profile.',
        'Plain http is only for this machine (localhost) unless --insecure. --device-name names this computer on',
        'the service\'s list of your devices (default: its host name). FAMILY_RECORDS_DESKTOP_BROWSER is the',
        'program that opens the page (default: xdg-open, open or the Windows default).'
    ].join('\n'),
    options: {
        'device-name': { type: 'string' },
        'no-browser': { type: 'boolean' },
        insecure: { type: 'boolean' }
    },
    positionals: ['<server-url>'],
    async run({ values, positionals: [input], output }) {

        const serverUrl = serverUrlOf(input, values.insecure === true);
        let shown = Promise.resolve();
        const client = await untilInterrupted(async (signal) => {

            try {
                const connected = await DesktopClient.connect(serverUrl, {
                    deviceName: values['device-name'],
                    allowInsecure: values.insecure,
                    signal,
                    onCode: (code) => {

                        shown = showCode(code, output, values['no-browser'] !== true);
                    }
                });
                await shown;
                return connected;
            }
            catch (error) {
                if (signal.aborted) {
                    throw new CliError('stopped before the code was approved: nothing was connected', 'aborted');
                }

                throw error;
            }
        });

        try {
            const { profile, keyStore } = await client.status();
            output.result({ profile: profile.name, server_url: profile.serverUrl, user_id: profile.userId, email: profile.email, family_name: profile.familyName,
                device_name: profile.deviceName, key_store: keyStore.kind, warning: keyStore.warning ?? null },
            () => [`✓ Connected to ${profile.serverUrl} as ${profile.email} (${profile.familyName})`]);
            if (keyStore.warning) {
                output.note(`! ${keyStore.warning}`);
            }
        }
        finally {
            await client.close();
        }
    }
});
