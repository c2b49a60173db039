import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { command } from '../../../lib/cli/command';
import { UsageError } from '../../../lib/cli/errors';

export const lab = Lab.script();
const { describe, it } = lab;

/** A command like `key create`, recording the values it ran with. */
function recordingCommand() {

    const ran: Record<string, unknown>[] = [];
    const keyCreate = command({
        usage: 'key create --family ID --name NAME [--json]',
        description: 'Creates a key.',
        options: { family: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
        required: ['family', 'name'],
        async run({ values }) {

            ran.push({ ...values });
        }
    });

    return { keyCreate, ran };
}

describe('command()', () => {

    it('runs with the options given', async () => {

        const { keyCreate, ran } = recordingCommand();
        await keyCreate.run(['--family', 'fam_a', '--name', 'n', '--json']);
        expect(ran).to.equal([{ family: 'fam_a', name: 'n', json: true }]);
    });

    it('refuses an option with a value given twice rather than acting on the last; a flag twice is the flag', async () => {

        const { keyCreate, ran } = recordingCommand();

        const error = await expect(keyCreate.run(['--family', 'fam_a', '--name', 'n', '--family', 'fam_b'])).to.reject(UsageError);
        expect(error.message).to.equal('--family is given more than once (usage: family-records key create --family ID --name NAME [--json])');
        await expect(keyCreate.run(['--family=fam_a', '--name', 'n', '--family=fam_a'])).to.reject(UsageError, /^--family is given more than once/);
        expect(ran).to.equal([]);

        await keyCreate.run(['--family=fam_a', '--name', 'n', '--json', '--json']);
        expect(ran).to.equal([{ family: 'fam_a', name: 'n', json: true }]);
    });

    it('explains an option without its value in one line', async () => {

        const { keyCreate } = recordingCommand();

        const error = await expect(keyCreate.run(['--family', '--name', 'n'])).to.reject(UsageError);
        expect(error.message).to.equal('Option \'--family\' argument is ambiguous (usage: family-records key create --family ID --name NAME [--json])');
        await expect(keyCreate.run(['--name', 'n', '--family'])).to.reject(UsageError, /^Option '--family <value>' argument missing \(usage: /);
    });
});
