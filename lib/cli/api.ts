import { disableApi, enableApi } from '../accounts/families';
import { auditCliCommand } from '../audit-log';
import { resourceNames } from '../../models/resources';
import { command, commandGroup, commaList } from './command';
import { printFamily } from './family';
import { jsonOption } from './output';
import { changeOfAccess } from './change-of-access';

export const apiCommands = commandGroup('api', {
    enable: command({
        usage: 'api enable --family ID --resources a,b [--json]',
        description: `Turns API access on, exposing these resources to the family's keys\n(${resourceNames.join(', ')}). The plan must include API access: Lite does not.`,
        options: { family: { type: 'string' }, resources: { type: 'string' }, ...jsonOption },
        required: ['family', 'resources'],
        async run({ values }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const enabled = await enableApi(accounts, values.family, commaList(values.resources));
                await auditCliCommand(models, { action: 'api.enable', familyLongId: enabled.family_long_id, detail: `Resources: ${enabled.api_resources.join(', ')}` });
                return enabled;
            }, (family) => printFamily(values.json, 'Enabled the API of', family));
        }
    }),
    disable: command({
        usage: 'api disable --family ID [--json]',
        description: 'Turns API access off: every key of the family is refused from its next request.',
        options: { family: { type: 'string' }, ...jsonOption },
        required: ['family'],
        async run({ values }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const disabled = await disableApi(accounts, values.family);
                await auditCliCommand(models, { action: 'api.disable', familyLongId: disabled.family_long_id });
                return disabled;
            }, (family) => printFamily(values.json, 'Disabled the API of', family));
        }
    })
});
