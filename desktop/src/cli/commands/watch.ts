import type { Change } from '../../sdk/types';
import { command } from '../command';
import { changeLine } from '../change-line';
import { CliError, exitCodes } from '../errors';
import { untilInterrupted } from '../interrupt';
import { People } from '../names';
import { withClient } from '../open-client';

/** Stream endings that mean the device must connect again. */
const signedOutCodes = new Set(['invalid_token']);

export const watchCommand = command({
    usage: 'watch',
    summary: 'show each change as it happens, until Ctrl-C',
    description: [
        'Follows the service\'s stream of changes and prints each one as it comes (with --json one JSON object',
        'per line), keeping this computer\'s copy up to date and sending the outbox on every (re)connection.',
        'Offline it waits and reconnects by itself. Ctrl-C stops it.'
    ].join('\n'),
    options: {},
    async run({ values, output }) {

        await withClient(values.profile, async (client) => {

            let people = await People.of(client, { ask: false });
            // Lines in the order the changes came, though naming one may wait on the store.
            let printed = Promise.resolve();
            const onChange = (change: Change) => {

                printed = printed.then(async () => {

                    if (change.kind === 'member' || change.kind === 'conversation') {
                        people = await People.of(client, { ask: true }).catch(() => people);
                    }

                    const line = output.json ? '' : await changeLine(client, change, people);
                    output.line(change, () => line);
                });
            };

            const onOnline = (online: boolean) => output.note(online ? 'connected: following changes (Ctrl-C to stop)' : 'offline: reconnecting when the service answers…');
            client.on('change', onChange);
            client.on('online', onOnline);
            try {
                const end = await untilInterrupted((signal) => client.watch(signal));
                await printed;
                if (end.code !== 'aborted') {
                    throw new CliError(`the service ended the stream: ${end.message} (${end.code})`, end.code, signedOutCodes.has(end.code) ? exitCodes.notConnected : exitCodes.error);
                }
            }
            finally {
                client.removeListener('change', onChange);
                client.removeListener('online', onOnline);
            }
        });
    }
});
