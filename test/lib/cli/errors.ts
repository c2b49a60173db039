import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import { TimeoutError } from 'sequelize';

import { reportError } from '../../../lib/cli/errors';
import { freePort } from '../../helpers/ports';
import { scratchDirectory } from '../../helpers/server';
import { capturingStderr } from '../../helpers/stderr';
import { cliEnvironment, runCli } from './run';

export const lab = Lab.script();
const { describe, it } = lab;

/** What reportError() wrote on stderr, and the exit code it chose. */
async function reported(error: unknown): Promise<{ exitCode: number; stderr: string }> {

    const { result: exitCode, written } = await capturingStderr(() => reportError(error));
    return { exitCode, stderr: written.join('') };
}

describe('reportError()', () => {

    it('says the database is busy when SQLite gave up waiting for another process\'s lock, not that the configuration is wrong', async () => {

        // What Sequelize throws once SQLite's busy timeout runs out (a server or a backup holding the write lock).
        const busy = new TimeoutError(Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY', sql: 'UPDATE `families` SET …' }));

        expect(await reported(busy)).to.equal({
            exitCode: 1,
            stderr: 'error: the database is busy: another process kept it locked longer than this command waits (SQLITE_BUSY: database is locked); try again\n'
        });
    });

    it('says the database does not answer, in one line, when it refuses the connection (a real CLI run)', async () => {

        const port = await freePort();
        const outcome = await runCli(['family', 'create', '--name', 'Nobody', '--plan', 'family'], cliEnvironment({ DATA_DIR: scratchDirectory(), DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/records` }));
        expect(outcome).to.equal({
            exitCode: 1,
            stdout: '',
            stderr: `error: the database does not answer (connect ECONNREFUSED 127.0.0.1:${port}): check DATABASE_URL (family-records --help) and that the database is running, then try again\n`
        });
    });

    it('points at the configuration for an error it cannot explain', async () => {

        expect((await reported(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).stderr).to.equal(
            'error: connect ECONNREFUSED 127.0.0.1:5432 (unexpected: check the configuration (DATABASE_URL, REDIS_URL, DATA_DIR…: family-records --help) and that the database is reachable)\n');
    });
});
