import { read } from 'read';

import { createUser, setUserDisabled } from '../accounts/users';
import { auditCliCommand } from '../audit-log';
import type { User } from '../../models/user';
import { changeOfAccess } from './change-of-access';
import { command, commandGroup } from './command';
import { CliError, UsageError } from './errors';
import { jsonOption, printResult } from './output';
import { withServices } from './services';

const usage = 'user create --email EMAIL --password PASSWORD|--password-stdin [--family ID] --role manager|member|super-admin [--json]';

/** All of standard input, once it ends; bytes that are not UTF-8 would otherwise become another password (U+FFFD). */
async function standardInputText(): Promise<string> {

    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) {
        chunks.push(chunk as Buffer);
    }

    try {
        return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    }
    catch {
        throw new CliError('standard input is not UTF-8 text: give the password as UTF-8');
    }
}

/** A password typed at the terminal, not echoed, twice: a typo would otherwise become the password nobody knows. */
async function typedPassword(): Promise<string> {

    // On stderr, so that stdout stays one JSON object with --json.
    const ask = async (prompt: string) => {

        try {
            return await read({ prompt, silent: true, replace: '', input: process.stdin, output: process.stderr });
        }
        finally {
            process.stderr.write('\n');           // the Enter (or Ctrl-C) that ended it was not shown either
        }
    };

    try {
        const password = await ask('Password: ');
        if (await ask('Password again: ') !== password) {
            throw new CliError('the two passwords differ: nothing was created');
        }

        return password;
    }
    catch (error) {
        throw error instanceof CliError ? error : new CliError('no password was typed: nothing was created');
    }
}

/**
 * The password of --password, or with --password-stdin (as `docker login`) all of standard input, one final newline
 * removed, or typed at the terminal when standard input is one: a password on the command line is in `ps` for every
 * user of the machine, and in shell history.
 */
async function givenPassword(values: { password?: string; 'password-stdin'?: boolean }): Promise<string> {

    if (values['password-stdin']) {
        if (values.password !== undefined) {
            throw new UsageError('--password and --password-stdin cannot be used together', usage);
        }

        return process.stdin.isTTY ? typedPassword() : (await standardInputText()).replace(/\r?\n$/, '');
    }

    if (values.password === undefined) {
        throw new UsageError('missing --password or --password-stdin', usage);
    }

    // On stderr, so that stdout stays one JSON object with --json.
    process.stderr.write('warning: a password given with --password is visible to other users of this machine (ps) and stays in shell history; use --password-stdin\n');
    return values.password;
}

const roleOf = (user: User) => (user.is_super_admin ? 'super-admin' : user.role);

/** `user disable` and `user enable`: what a disabled user's devices may do changes on every server from the next request. */
function disablingCommand(disabled: boolean) {

    const verb = disabled ? 'disable' : 'enable';
    return command({
        usage: `user ${verb} ID [--json]`,
        description: disabled
            ? 'Disables a user: the devices they connected are refused from the next request on (403 account_disabled),\nand they can connect no new one. A user disabled already stays as they were (exit 0, "changed": false).'
            : 'Enables a disabled user again: their devices are accepted again. On a user not disabled it changes nothing (exit 0).',
        options: jsonOption,
        positionals: ['ID'],
        async run({ values, positionals: [id] }) {

            await changeOfAccess(async ({ accounts, models }) => {

                const outcome = await setUserDisabled(accounts, id, disabled);
                if (outcome.changed) {
                    await auditCliCommand(models, { action: `user.${verb}`, familyLongId: outcome.user.family_long_id, target: outcome.user.id, detail: outcome.user.email });
                }

                return outcome;
            }, ({ user, changed }) => printResult(values.json, {
                id: user.id, email: user.email, disabled_at: user.disabled_at, changed
            }, () => [changed ? `${disabled ? 'Disabled' : 'Enabled'} user ${user.email} (${user.id})` : `User ${user.email} (${user.id}) was already ${verb}d: nothing changed`]));
        }
    });
}

export const userCommands = commandGroup('user', {
    create: command({
        usage,
        description: 'Creates a user of the hosted site. Managers and members belong to a family (--family);\na super-admin operates the service and may have none. Passwords are 10 to 72 characters\n(at most 72 bytes in UTF-8: fewer characters outside ASCII), not all white space.\n--password-stdin reads the password from standard input, all of it but one final newline\n(printf \'%s\' "$PASSWORD" | family-records user create … --password-stdin), so that it is\nneither in the process list, where other users of the machine see --password, nor in shell history;\nat a terminal, it asks for the password twice without showing it.',
        options: { email: { type: 'string' }, password: { type: 'string' }, 'password-stdin': { type: 'boolean' }, family: { type: 'string' }, role: { type: 'string' }, ...jsonOption },
        required: ['email', 'role'],
        async run({ values }) {

            const password = await givenPassword(values);
            const user = await withServices(async ({ accounts, models }) => {

                const created = await createUser(accounts, { email: values.email, password, familyLongId: values.family, role: values.role });
                await auditCliCommand(models, { action: 'user.create', familyLongId: created.family_long_id ?? null, target: created.id, detail: `${created.email}, ${roleOf(created)}` });
                return created;
            });
            const role = roleOf(user);
            printResult(values.json, { id: user.id, email: user.email, family_long_id: user.family_long_id ?? null, role }, () => [
                `Created ${role} ${user.email} (${user.id})${user.family_long_id ? ` in family ${user.family_long_id}` : ''}`
            ]);
        }
    }),
    disable: disablingCommand(true),
    enable: disablingCommand(false)
});
