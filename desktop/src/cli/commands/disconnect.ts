import { DesktopClient } from '../../engine/desktop-client';
import { command } from '../command';
import { exitCodes } from '../errors';
import { counted } from '../format';

export const disconnectCommand = command({
    usage: 'disconnect [--forget]',
    summary: 'sign this computer out: the service forgets the device, this computer its keys',
    description: [
        'Asks the service to revoke this device (its tokens stop working), removes the keys from this computer',
        'and wipes the local copy, which nothing can read without them: messages still in the outbox are lost.',
        'Offline, the revocation is kept and tried again at the next start of family-records-desktop (exit 3).',
        '--forget removes the profile too; without it, `connect` to the same server takes it up again.'
    ].join('\n'),
    options: {
        forget: { type: 'boolean' }
    },
    async run({ values, output }) {

        // Not withClient(): a disconnected client is closed already, its store wiped.
        const client = await DesktopClient.open({ profile: values.profile });
        const { profile } = client;
        const unsent = (await client.store.outboxItems()).length;
        const { revoked } = await client.disconnect({ forget: values.forget });
        const local = values.forget ? 'its keys, copy and profile are removed from this computer' : 'its keys and copy are removed from this computer';
        output.result({ profile: profile.name, revoked, forgotten: values.forget === true }, () => [revoked
            ? `✓ Disconnected ${profile.email} on ${profile.serverUrl}: the service revoked this device, and ${local}.`
            : `Disconnected ${profile.email} here (${local}), but the service could not be reached: the revocation will be retried at the next start.`]);
        if (unsent > 0) {
            output.note(`! ${counted(unsent, 'message')} of the outbox, never sent, went with the local copy.`);
        }

        return revoked ? exitCodes.ok : exitCodes.offline;
    }
});
