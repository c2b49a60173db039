import type { LivingPersonsAccess } from '../../models/api-key';
import { createApiKey, keyScopesDetail, revokeApiKey } from '../accounts/api-keys';
import { auditCliCommand, cliActorId } from '../audit-log';
import { changeOfAccess } from './change-of-access';
import { command, commandGroup, commaList } from './command';
import { jsonOption, listed, printResult } from './output';
import { withServices } from './services';

const legacyNote = `--legacy marks a key imported from before write scopes were offered: it keeps
read, search, sort and filter only, forever; asking for a write operation with it
is an error, and the key can never be widened later (create a new key instead).
--operations defaults to policies/scopes.yaml default_key_operations (read-only as
shipped): write operations (create, update, delete) always need an explicit grant.
--living-persons redacted hides living persons' details from the key: names shown as
"Living"; dates, places, notes removed (policies/privacy.yaml says who is living).
Default full. The site's Manage > APIs & Connectors changes it, as it changes scopes.`;

export const keyCommands = commandGroup('key', {
    create: command({
        usage: 'key create --family ID --name NAME --resources a,b [--operations read,create] [--living-persons full|redacted] [--legacy] [--json]',
        description: 'Creates an API key for the family and prints it: the only time the key is shown.\nResources must be among those the family exposes (api enable).',
        options: { family: { type: 'string' }, name: { type: 'string' }, resources: { type: 'string' }, operations: { type: 'string' }, 'living-persons': { type: 'string' }, legacy: { type: 'boolean' }, ...jsonOption },
        required: ['family', 'name', 'resources'],
        async run({ values }) {

            const { key, apiKey } = await withServices(async ({ accounts, models }) => {

                const created = await createApiKey(accounts, {
                    familyLongId: values.family,
                    name: values.name,
                    resources: commaList(values.resources),
                    operations: values.operations === undefined ? undefined : commaList(values.operations),
                    predatesWriteScopes: values.legacy,
                    // Any string the operator typed: createApiKey refuses all but full and redacted.
                    livingPersons: values['living-persons'] as LivingPersonsAccess | undefined,
                    createdBy: cliActorId
                });
                const { id, name, family_long_id: familyLongId } = created.apiKey;
                await auditCliCommand(models, { action: 'api_key.create', familyLongId, target: id, detail: `“${name}”: ${keyScopesDetail(created.apiKey)}` });
                return created;
            });

            printResult(values.json, {
                key,
                id: apiKey.id,
                family_long_id: apiKey.family_long_id,
                name: apiKey.name,
                display_prefix: apiKey.display_prefix,
                last_four: apiKey.last_four,
                resources: apiKey.resource_scopes,
                operations: apiKey.operation_scopes,
                predates_write_scopes: apiKey.predates_write_scopes,
                living_persons: apiKey.living_persons
            }, () => [
                `Created API key ${apiKey.id} "${apiKey.name}" for family ${apiKey.family_long_id}`,
                `  resources:  ${listed(apiKey.resource_scopes)}`,
                `  operations: ${listed(apiKey.operation_scopes)}${apiKey.predates_write_scopes ? ' (predates write scopes: read-only forever)' : ''}`,
                `  living persons: ${apiKey.living_persons === 'redacted' ? 'redacted (names shown as "Living"; dates, places, notes removed)' : 'full'}`,
                `  key:        ${key}`,
                '  The key is shown only this once: store it now.'
            ]);
        }
    }),
    revoke: command({
        usage: 'key revoke ID|KEY [--json]',
        description: 'Revokes a key for good: running servers refuse it from the next request on.\nWhile Redis does not answer the revocation is still saved, and it says what that leaves to do (exit 3).\nID is the key\'s id (key_…); the key itself (frk_…, one found leaked, say) works too.\nA key revoked already stays as it was (exit 0, "changed": false with --json).',
        options: jsonOption,
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const outcome = await revokeApiKey(accounts, id, cliActorId);
                if (outcome.changed) {
                    await auditCliCommand(models, { action: 'api_key.revoke', familyLongId: outcome.apiKey.family_long_id, target: outcome.apiKey.id, detail: `“${outcome.apiKey.name}”` });
                }

                return outcome;
            }, ({ apiKey, changed }) => printResult(values.json, {
                id: apiKey.id, family_long_id: apiKey.family_long_id, name: apiKey.name, revoked_at: apiKey.revoked_at, changed
            }, () => [
                changed
                    ? `Revoked API key ${apiKey.id} "${apiKey.name}" of family ${apiKey.family_long_id}`
                    : `API key ${apiKey.id} "${apiKey.name}" of family ${apiKey.family_long_id} was already revoked at ${apiKey.revoked_at?.toISOString()}: nothing changed`
            ]));
        }
    })
}, legacyNote);
