import { command } from '../command';
import { untilInterrupted } from '../interrupt';
import { withClient } from '../open-client';

export const windowCommand = command({
    usage: 'window',
    summary: 'open the desktop window (what the command does without a command)',
    description: [
        'Opens the desktop window of the connected account (an app window of Chromium, Chrome or Edge when one is',
        'installed, else the default browser; FAMILY_RECORDS_DESKTOP_BROWSER chooses the program) and keeps',
        'running until the window is closed or Ctrl-C.'
    ].join('\n'),
    options: {},
    async run({ values, output }) {

        // Loaded here: the window's server (hapi) would slow every other command's start.
        const { openDesktopWindow } = await import('../../window/launcher');
        await withClient(values.profile, async (client) => {

            await untilInterrupted((signal) => openDesktopWindow(client, {
                signal,
                onOpen: (url) => output.note(`The window of ${client.profile.email} is at ${url} (if it did not open, open that address; Ctrl-C closes it)`)
            }));
        });
    }
});
