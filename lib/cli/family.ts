import { changePlan, createFamily, suspendFamily, unsuspendFamily } from '../accounts/families';
import { planNames, type Family } from '../../models/family';
import { command, commandGroup } from './command';
import { jsonOption, listed, printResult } from './output';
import { withServices } from './services';

const plans = planNames.join('|');

function familyJson(family: Family) {

    return {
        family_long_id: family.family_long_id,
        name: family.name,
        plan: family.plan,
        api_enabled: family.api_enabled,
        api_resources: family.api_resources,
        api_suspended: Boolean(family.api_suspended_at),
        api_suspension_reason: family.api_suspension_reason ?? null
    };
}

export function printFamily(asJson: boolean | undefined, done: string, family: Family): void {

    printResult(asJson, familyJson(family), () => [
        `${done} family ${family.family_long_id} "${family.name}"`,
        `  plan: ${family.plan}`,
        `  API:  ${family.api_enabled ? `enabled for ${listed(family.api_resources)}` : 'not enabled'}${family.api_suspended_at ? `, suspended (${family.api_suspension_reason})` : ''}`
    ]);
}

export const familyCommands = commandGroup('family', {
    create: command({
        usage: `family create --name NAME --plan ${plans} [--json]`,
        description: 'Creates a family (the tenant) and prints its family_long_id.',
        options: { name: { type: 'string' }, plan: { type: 'string' }, ...jsonOption },
        required: ['name', 'plan'],
        async run({ values }) {

            printFamily(values.json, 'Created', await withServices(({ accounts }) => createFamily(accounts, { name: values.name, plan: values.plan })));
        }
    }),
    suspend: command({
        usage: 'family suspend ID [--reason TEXT] [--json]',
        description: 'Stops every API key of the family at once, on every running server.\nThe reason is shown to the family\'s managers (default "Suspended by an operator").',
        options: { reason: { type: 'string' }, ...jsonOption },
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            const family = await withServices(({ accounts }) => suspendFamily(accounts, id, values.reason ?? 'Suspended by an operator', 'cli'));
            printFamily(values.json, 'Suspended the API of', family);
        }
    }),
    unsuspend: command({
        usage: 'family unsuspend ID [--json]',
        description: 'Lifts a suspension: the family\'s keys work again.',
        options: jsonOption,
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            printFamily(values.json, 'Lifted the suspension of', await withServices(({ accounts }) => unsuspendFamily(accounts, id)));
        }
    }),
    plan: command({
        usage: `family plan ID --plan ${plans} [--json]`,
        description: 'Moves the family to another plan; its keys follow the new plan\'s rules on their next request.',
        options: { plan: { type: 'string' }, ...jsonOption },
        required: ['plan'],
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            printFamily(values.json, 'Changed the plan of', await withServices(({ accounts }) => changePlan(accounts, id, values.plan)));
        }
    })
});
