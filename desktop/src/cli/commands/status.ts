import { command } from '../command';
import { refreshed, withClient } from '../open-client';

export const statusCommand = command({
    usage: 'status',
    summary: 'the connected account, where its keys are kept, the outbox and the conflicts',
    description: [
        'Shows the profile in use (server, account, family, this device\'s name), where its keys are kept,',
        'whether the service answers (it syncs first, which tells), how many messages wait in the outbox and how many',
        'conflicts are open.'
    ].join('\n'),
    options: {},
    async run({ values, output }) {

        await withClient(values.profile, async (client) => {

            const online = await refreshed(client, output);
            const status = await client.status();
            const { profile, keyStore } = status;
            output.result({
                profile: profile.name,
                server_url: profile.serverUrl,
                user_id: profile.userId,
                email: profile.email,
                family_name: profile.familyName,
                device_name: profile.deviceName,
                key_store: { kind: keyStore.kind, description: keyStore.description, warning: keyStore.warning ?? null },
                online,
                outbox: status.outbox,
                open_conflicts: status.openConflicts,
                last_sync_at: status.lastSyncAt
            }, () => [
                `${profile.serverUrl}`,
                `  ✓ Signed in as ${profile.email} (${profile.familyName}), this device "${profile.deviceName}"`,
                `  Profile: ${profile.name}`,
                `  Keys: ${keyStore.description}`,
                ...(keyStore.warning ? [`  ! ${keyStore.warning}`] : []),
                `  Service: ${online ? 'online' : 'offline'}; last synced ${status.lastSyncAt ?? 'never'}`,
                `  Outbox: ${status.outbox === 0 ? 'empty' : `${status.outbox} waiting`}; conflicts: ${status.openConflicts === 0 ? 'none' : `${status.openConflicts} open`}`
            ]);
        });
    }
});
