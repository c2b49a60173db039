import ChildProcess from 'child_process';
import Net from 'net';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../lib/config';
import { scratchDirectory, testRedisUrl } from '../helpers/server';
import { cliEnvironment, cliScript, runCli } from './run';

export const lab = Lab.script();
const { describe, it } = lab;

/** Resolves with everything printed up to the line matching `pattern`; rejects when the process ends first. */
function outputUntil(child: ChildProcess.ChildProcess, pattern: RegExp): Promise<string> {

    return new Promise((resolve, reject) => {

        let output = '';
        const onData = (chunk: Buffer) => {

            output += chunk.toString();
            if (pattern.test(output)) {
                child.stdout!.removeListener('data', onData);
                resolve(output);
            }
        };

        child.stdout!.on('data', onData);
        child.once('exit', (code) => reject(new Error(`serve exited (${code}) before printing ${pattern}:\n${output}`)));
    });
}

describe('family-records serve', () => {

    it('seeds a demo family on an empty database, serves it over HTTP and stops on SIGTERM', async () => {

        // Always a fresh SQLite database: serve seeds only an empty one, and the PostgreSQL test database is shared by the suite.
        const env = cliEnvironment({
            DATA_DIR: scratchDirectory(),
            PORT: '0',
            ...(testRedisUrl ? { REDIS_URL: testRedisUrl, REDIS_PREFIX: process.env.TEST_REDIS_PREFIX ?? 'fr-test:' } : {})
        });
        const child = ChildProcess.spawn(process.execPath, [cliScript, 'serve'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

        try {
            const output = await outputUntil(child, /listening on (http:\/\/\S+)\n/);
            const url = /listening on (http:\/\/\S+)\n/.exec(output)![1];
            const key = /frk_[A-Za-z0-9]+/.exec(output)?.[0];
            expect(url).to.not.endWith(':0');
            expect(key, output).to.exist();
            expect(output).to.include(`curl -H "Authorization: Bearer ${key}" "${url}/api/v1/persons`);

            const response = await fetch(`${url}/api/v1/persons`, { headers: { authorization: `Bearer ${key}` } });
            expect(response.status).to.equal(200);
            const body = await response.json() as { data: { first_name: string }[] };
            expect(body.data.map((person) => person.first_name)).to.include(['Zoë', 'José']);
        }
        finally {
            child.kill('SIGTERM');
        }

        expect(await exited, stderr).to.equal(0);
        expect(stderr).to.include('SIGTERM: stopping');
    });

    it('ends at once, naming the setting to change, when its port is taken', async () => {

        const taken = Net.createServer();
        await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
        const { port } = taken.address() as Net.AddressInfo;
        try {
            // runCli gives up after 60 s: a server left half started kept the process alive for ever.
            const outcome = await runCli(['serve'], cliEnvironment({ DATA_DIR: scratchDirectory(), PORT: String(port) }));

            expect(outcome.exitCode).to.equal(1);
            expect(outcome.stderr).to.equal(`error: cannot listen on 127.0.0.1:${port}: the port is already in use (another service, or this one started twice); set PORT (or HOST) to another\n`);
        }
        finally {
            taken.close();
        }
    });

    it('names a bad setting without calling it unexpected', async () => {

        for (const [name, value, problem] of [['HOST', '999.1.1.1', '"HOST" must be a host name or an IP address to listen on'], ['PORT', 'abc', '"PORT" must be a number']]) {
            const outcome = await runCli(['serve'], cliEnvironment({ DATA_DIR: scratchDirectory(), [name]: value }));

            expect(outcome.exitCode).to.equal(1);
            expect(outcome.stderr).to.equal(`error: Invalid configuration: ${problem}\n`);
        }
    });
});
