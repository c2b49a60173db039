import { createUser } from '../accounts/users';
import { command, commandGroup } from './command';
import { jsonOption, printResult } from './output';
import { withServices } from './services';

export const userCommands = commandGroup('user', {
    create: command({
        usage: 'user create --email EMAIL --password PASSWORD [--family ID] --role manager|member|super-admin [--json]',
        description: 'Creates a user of the hosted site. Managers and members belong to a family (--family);\na super-admin operates the service and may have none. Passwords are 10 to 72 characters\n(at most 72 bytes in UTF-8: fewer characters outside ASCII), not all white space.',
        options: { email: { type: 'string' }, password: { type: 'string' }, family: { type: 'string' }, role: { type: 'string' }, ...jsonOption },
        required: ['email', 'password', 'role'],
        async run({ values }) {

            const user = await withServices(({ accounts }) => createUser(accounts, { email: values.email, password: values.password, familyLongId: values.family, role: values.role }));
            const role = user.is_super_admin ? 'super-admin' : user.role;
            printResult(values.json, { id: user.id, email: user.email, family_long_id: user.family_long_id ?? null, role }, () => [
                `Created ${role} ${user.email} (${user.id})${user.family_long_id ? ` in family ${user.family_long_id}` : ''}`
            ]);
        }
    })
});
