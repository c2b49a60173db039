import { isAccountRefusal } from '../../engine/errors';
import { OfflineError, type ApiError } from '../../sdk/errors';
import { command } from '../command';
import { exitCodes } from '../errors';
import { counted } from '../format';
import { withClient } from '../open-client';

export const syncCommand = command({
    usage: 'sync',
    summary: 'fetch what changed, and send what waits in the outbox',
    description: [
        'Brings this computer\'s copy up to date with the service, then sends the outbox. Offline nothing is lost:',
        'exit code 3, and the outbox waits for the next try.'
    ].join('\n'),
    options: {},
    async run({ values, output }) {

        return withClient(values.profile, async (client) => {

            let synced;
            try {
                synced = await client.syncAndFlush();
            }
            catch (error) {
                if (isAccountRefusal(error)) {
                    const { openConflicts } = await client.status();
                    output.error((error as ApiError).code, `${(error as Error).message}${openConflicts > 0 ? ` What the outbox held is kept as conflicts: see \`conflicts\`.` : ''}`);
                    return exitCodes.error;
                }

                if (!(error instanceof OfflineError)) {
                    throw error;
                }

                const { outbox } = await client.status();
                output.error('offline', `offline: ${error.message} Nothing synced${outbox > 0 ? `; the outbox keeps ${counted(outbox, 'message')}` : ''}.`);
                return exitCodes.offline;
            }

            const flushed = synced.outbox;
            output.result({ changes: synced.changes, reset: synced.reset, outbox: flushed }, () => [
                `✓ Synced: ${counted(synced.changes, 'change')}${synced.reset ? ' (the copy was fetched anew)' : ''}`,
                `  Outbox: ${flushed.sent} sent, ${counted(flushed.conflicts, 'conflict')}, ${flushed.waiting} waiting`
            ]);
            return flushed.waiting > 0 && !client.online ? exitCodes.offline : exitCodes.ok;
        });
    }
});
