import { changePlan, createFamily, restoreFamilyMessaging, suspenderName, suspendFamily, suspendFamilyMessaging, unsuspendFamily } from '../accounts/families';
import { auditCliCommand, cliActorId } from '../audit-log';
import { planNames, type Family } from '../../models/family';
import { changeOfAccess } from './change-of-access';
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
        api_suspended_at: family.api_suspended_at ?? null,
        api_suspended_by: family.api_suspended_by ?? null,
        api_suspension_reason: family.api_suspension_reason ?? null,
        messaging_suspended: Boolean(family.messaging_suspended_at),
        messaging_suspended_at: family.messaging_suspended_at ?? null,
        messaging_suspended_by: family.messaging_suspended_by ?? null,
        messaging_suspension_reason: family.messaging_suspension_reason ?? null
    };
}

/** Prints the family after a change; `extra` adds to its JSON (`changed`). */
export function printFamily(asJson: boolean | undefined, done: string, family: Family, extra: object = {}): void {

    printResult(asJson, { ...familyJson(family), ...extra }, () => [
        `${done} family ${family.family_long_id} "${family.name}"`,
        `  plan: ${family.plan}`,
        `  API:  ${family.api_enabled ? `enabled for ${listed(family.api_resources)}` : 'not enabled'}${family.api_suspended_at ? `, suspended (${family.api_suspension_reason})` : ''}`,
        `  messaging: ${family.messaging_suspended_at ? `suspended (${family.messaging_suspension_reason})` : 'on'}`
    ]);
}

/** What a suspension stops, as a command names it: `suspend` and `unsuspend` the API, `suspend-messaging` and `restore-messaging` messaging. */
interface Suspension {
    /** What the family "was" when it is suspended already. */
    already: string;
    since: (family: Family) => Date | null;
    reason: (family: Family) => string | null;
    lift: string;
    again: string;
}

const apiSuspension: Suspension = { already: 'was already suspended', since: (family) => family.api_suspended_at, reason: (family) => family.api_suspension_reason, lift: 'unsuspend', again: 'suspend' };
const messagingSuspension: Suspension = { already: 'had its messaging already suspended', since: (family) => family.messaging_suspended_at, reason: (family) => family.messaging_suspension_reason, lift: 'restore-messaging', again: 'suspend-messaging' };

/** A suspension left as it was, its time, author and reason, with how to give another reason. */
function printStandingSuspension(asJson: boolean | undefined, family: Family, suspender: string, suspension: Suspension): void {

    const id = family.family_long_id;
    printResult(asJson, { ...familyJson(family), changed: false }, () => [
        `Family ${id} "${family.name}" ${suspension.already} since ${suspension.since(family)?.toISOString()} by ${suspender}: ${suspension.reason(family)}`,
        `  Nothing changed. To give another reason: family-records family ${suspension.lift} ${id}, then family-records family ${suspension.again} ${id} --reason TEXT`
    ]);
}

export const familyCommands = commandGroup('family', {
    create: command({
        usage: `family create --name NAME --plan ${plans} [--json]`,
        description: 'Creates a family (the tenant) and prints its family_long_id.',
        options: { name: { type: 'string' }, plan: { type: 'string' }, ...jsonOption },
        required: ['name', 'plan'],
        async run({ values }) {

            const family = await withServices(async ({ accounts, models }) => {

                const created = await createFamily(accounts, { name: values.name, plan: values.plan });
                await auditCliCommand(models, { action: 'family.create', familyLongId: created.family_long_id, target: created.family_long_id, detail: `“${created.name}”, ${created.plan} plan` });
                return created;
            });

            printFamily(values.json, 'Created', family);
        }
    }),
    suspend: command({
        usage: 'family suspend ID [--reason TEXT] [--json]',
        description: 'Stops every API key of the family at once, on every running server.\nWhile Redis does not answer the suspension is still saved, and it says what that leaves to do (exit 3).\nThe reason is shown to the family\'s managers (default "Suspended by an operator").\nA family suspended already stays so, since when, by whom and why it was (exit 0, "changed": false\nwith --json): to give another reason, unsuspend it, then suspend it again.',
        options: { reason: { type: 'string' }, ...jsonOption },
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const { family, changed } = await suspendFamily(accounts, id, values.reason ?? 'Suspended by an operator', cliActorId);
                if (!changed) {
                    return { family, suspender: await suspenderName(models, family.api_suspended_by) };
                }

                await auditCliCommand(models, { action: 'family.suspend', familyLongId: family.family_long_id, target: family.family_long_id, detail: family.api_suspension_reason });
                return { family };
            }, ({ family, suspender }) => {

                if (suspender === undefined) {
                    printFamily(values.json, 'Suspended the API of', family, { changed: true });
                }
                else {
                    printStandingSuspension(values.json, family, suspender, apiSuspension);
                }
            });
        }
    }),
    unsuspend: command({
        usage: 'family unsuspend ID [--json]',
        description: 'Lifts a suspension: the family\'s keys work again. A family not suspended stays so\n(exit 0, "changed": false with --json).',
        options: jsonOption,
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const outcome = await unsuspendFamily(accounts, id);
                if (outcome.changed) {
                    await auditCliCommand(models, { action: 'family.unsuspend', familyLongId: outcome.family.family_long_id, target: outcome.family.family_long_id });
                }

                return outcome;
            }, ({ family, changed }) => {

                if (changed) {
                    printFamily(values.json, 'Lifted the suspension of', family, { changed });
                }
                else {
                    printResult(values.json, { ...familyJson(family), changed }, () => [`Family ${family.family_long_id} "${family.name}" was not suspended: nothing changed`]);
                }
            });
        }
    }),
    'suspend-messaging': command({
        usage: 'family suspend-messaging ID [--reason TEXT] [--json]',
        description: 'Stops the family\'s messaging at once, on the site and for its devices (403 messaging_suspended from\ntheir next request), on every running server. Its family API and API keys are left as they are.\nWhile Redis does not answer the suspension is still saved, and it says what that leaves to do (exit 3).\nThe reason is shown to the family (default "Suspended by an operator"). A family whose messaging is\nsuspended already stays so, since when, by whom and why it was (exit 0, "changed": false with --json):\nto give another reason, restore it, then suspend it again.',
        options: { reason: { type: 'string' }, ...jsonOption },
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const { family, changed } = await suspendFamilyMessaging(accounts, id, values.reason ?? 'Suspended by an operator', cliActorId);
                if (!changed) {
                    return { family, suspender: await suspenderName(models, family.messaging_suspended_by) };
                }

                await auditCliCommand(models, { action: 'family.suspend_messaging', familyLongId: family.family_long_id, target: family.family_long_id, detail: family.messaging_suspension_reason });
                return { family };
            }, ({ family, suspender }) => {

                if (suspender === undefined) {
                    printFamily(values.json, 'Suspended messaging of', family, { changed: true });
                }
                else {
                    printStandingSuspension(values.json, family, suspender, messagingSuspension);
                }
            });
        }
    }),
    'restore-messaging': command({
        usage: 'family restore-messaging ID [--json]',
        description: 'Lifts a suspension of the family\'s messaging: its members can message again, on the site and with\ntheir devices. A family whose messaging is not suspended stays so (exit 0, "changed": false with --json).',
        options: jsonOption,
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const outcome = await restoreFamilyMessaging(accounts, id);
                if (outcome.changed) {
                    await auditCliCommand(models, { action: 'family.restore_messaging', familyLongId: outcome.family.family_long_id, target: outcome.family.family_long_id });
                }

                return outcome;
            }, ({ family, changed }) => {

                if (changed) {
                    printFamily(values.json, 'Restored messaging of', family, { changed });
                }
                else {
                    printResult(values.json, { ...familyJson(family), changed }, () => [`Family ${family.family_long_id} "${family.name}" did not have its messaging suspended: nothing changed`]);
                }
            });
        }
    }),
    plan: command({
        usage: `family plan ID --plan ${plans} [--json]`,
        description: 'Moves the family to another plan; its keys follow the new plan\'s rules on their next request.',
        options: { plan: { type: 'string' }, ...jsonOption },
        required: ['plan'],
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const changed = await changePlan(accounts, id, values.plan);
                await auditCliCommand(models, { action: 'family.change_plan', familyLongId: changed.family_long_id, target: changed.family_long_id, detail: `${changed.plan} plan` });
                return changed;
            }, (family) => printFamily(values.json, 'Changed the plan of', family));
        }
    })
});
