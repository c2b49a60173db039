import { listDeviceGrants, revokeDeviceGrant, type DeviceGrantView } from '../accounts/devices';
import { auditCliCommand, cliActorId } from '../audit-log';
import { changeOfAccess } from './change-of-access';
import { command, commandGroup } from './command';
import { jsonOption, listed, printResult } from './output';
import { withServices } from './services';

/** A device as --json shows it. */
function deviceJson(grant: DeviceGrantView) {

    return {
        id: grant.id,
        user_id: grant.userId,
        user_email: grant.userEmail,
        family_long_id: grant.familyLongId,
        client_id: grant.clientId,
        device_name: grant.deviceName,
        scopes: grant.scopes,
        approved_at: grant.approvedAt,
        last_used_at: grant.lastUsedAt,
        last_used_from: grant.lastUsedFrom,
        revoked_at: grant.revokedAt
    };
}

export const deviceCommands = commandGroup('device', {
    list: command({
        usage: 'device list --family ID [--json]',
        description: 'Lists the family\'s connected devices (desktop clients signed in through the browser), newest first.\nRevoked and expired ones are left out.',
        options: { family: { type: 'string' }, ...jsonOption },
        required: ['family'],
        async run({ values }) {

            const grants = await withServices(({ accounts }) => listDeviceGrants(accounts, { familyLongId: values.family }));
            printResult(values.json, { devices: grants.map(deviceJson) }, () => (grants.length === 0
                ? [`No connected devices in family ${values.family}`]
                : grants.map((grant) => [
                    `${grant.id}  ${JSON.stringify(grant.deviceName)} (${grant.clientName}) of ${grant.userEmail}`,
                    `  scopes: ${listed(grant.scopes)}; approved ${grant.approvedAt.toISOString()}; last used ${grant.lastUsedAt?.toISOString() ?? 'never'}${grant.lastUsedFrom ? ` from ${grant.lastUsedFrom}` : ''}`
                ].join('\n'))));
        }
    }),
    revoke: command({
        usage: 'device revoke ID [--json]',
        description: 'Disconnects a device for good: its tokens are refused by running servers from the next request on,\nand its refresh token gets no new ones. While Redis does not answer the revocation is still saved (exit 3).\nA device revoked already stays as it was (exit 0, "changed": false with --json).',
        options: jsonOption,
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const outcome = await revokeDeviceGrant(accounts, id, cliActorId);
                if (outcome.changed) {
                    await auditCliCommand(models, { action: 'device.revoke', familyLongId: outcome.grant.familyLongId, target: outcome.grant.id, detail: `“${outcome.grant.deviceName}” of ${outcome.grant.userEmail}` });
                }

                return outcome;
            }, ({ grant, changed }) => printResult(values.json, { ...deviceJson(grant), changed }, () => [
                changed
                    ? `Disconnected device ${grant.id} ${JSON.stringify(grant.deviceName)} of ${grant.userEmail}`
                    : `Device ${grant.id} ${JSON.stringify(grant.deviceName)} was already disconnected at ${grant.revokedAt?.toISOString()}: nothing changed`
            ]));
        }
    })
});
