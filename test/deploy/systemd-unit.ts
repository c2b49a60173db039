import ChildProcess from 'child_process';
import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../lib/config';
import { scratchDirectory } from '../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const systemdAnalyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => Fs.existsSync(path));

/** The highest exposure `systemd-analyze security` may rate the unit: 0 (locked down) to 10 (everything allowed); under 2.5 reads "OK". */
const highestExposure = 2.5;

/** deploy/family-records.service as an installed template, in a scratch directory; node where this machine has it. */
function installedTemplate(): string {

    const directory = scratchDirectory();
    const unit = Fs.readFileSync(Path.join(projectRoot, 'deploy', 'family-records.service'), 'utf8');
    expect(unit).to.contain('ExecStart=/usr/bin/node ');
    const template = Path.join(directory, 'family-records@.service');
    Fs.writeFileSync(template, unit.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `));
    return template;
}

const run = (args: string[]) => ChildProcess.spawnSync(systemdAnalyze!, args, { encoding: 'utf8' });

describe('deploy/family-records.service', { skip: !systemdAnalyze }, () => {

    it('is a unit systemd reads without a warning', () => {

        const template = installedTemplate();
        const result = run(['verify', template.replace('@.service', '@3001.service')]);
        expect(result.stderr + result.stdout).to.equal('');
        expect(result.status).to.equal(0);
    });

    it(`is rated at most ${highestExposure} of 10 by systemd-analyze security, and leaves V8's JIT its writable code`, () => {

        const template = installedTemplate();
        const result = run(['security', '--offline=yes', `--threshold=${highestExposure * 10}`, template]);
        const exposure = Number(/Overall exposure level for \S+: (\d+\.\d+)/.exec(result.stdout)?.[1]);
        expect(exposure, result.stdout).to.be.at.most(highestExposure);
        expect(result.status).to.equal(0);
        // MemoryDenyWriteExecute would stop node at its first compiled function.
        expect(Fs.readFileSync(template, 'utf8')).to.not.match(/^MemoryDenyWriteExecute=(true|yes|1)/m);
    });
});
