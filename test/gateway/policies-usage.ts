import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { PolicyError } from '../../gateway/policies/data-file';
import { loadPolicies, POLICY_FILE_NAMES } from '../../gateway/policies/load';
import { projectRoot } from '../../lib/config';
import { copyPolicies } from '../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

/** A copy of the shipped policies with part of one file rewritten; fails when `from` is not there. */
function editedPolicies(file: string, from: string, to: string): string {

    const dir = copyPolicies();
    const path = Path.join(dir, file);
    const text = Fs.readFileSync(path, 'utf8');
    expect(text).to.include(from);
    Fs.writeFileSync(path, text.replace(from, to));
    return dir;
}

function loadError(dir: string): string {

    return expect(() => loadPolicies(dir)).to.throw(PolicyError).message;
}

describe('loadPolicies(): usage.yaml', () => {

    it('loads the shipped metering policy', () => {

        const { usage } = loadPolicies(Path.join(projectRoot, 'policies'));
        expect(usage).to.equal({ flush_interval_seconds: 10, retention_days: 90, cleanup_schedule: '17 3 * * *' });
        expect(POLICY_FILE_NAMES).to.include('usage.yaml');
    });

    it('refuses a retention shorter than the 30 days the usage pages show', () => {

        const dir = editedPolicies('usage.yaml', 'retention_days: 90', 'retention_days: 7');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'usage.yaml')}: retention_days: must be greater than or equal to 30`);
    });

    it('refuses a clean-up schedule that is not a cron expression', () => {

        const dir = editedPolicies('usage.yaml', 'cleanup_schedule: "17 3 * * *"', 'cleanup_schedule: "every night"');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'usage.yaml')}: cleanup_schedule: "every night" is not a cron expression (e.g. "17 3 * * *": daily at 03:17)`);
    });

    it('refuses a flush interval that could lose more than five minutes of counts', () => {

        const dir = editedPolicies('usage.yaml', 'flush_interval_seconds: 10', 'flush_interval_seconds: 3600');
        expect(loadError(dir)).to.contain('flush_interval_seconds: must be less than or equal to 300');
    });

    it('refuses a missing usage.yaml', () => {

        const dir = copyPolicies();
        Fs.rmSync(Path.join(dir, 'usage.yaml'));
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'usage.yaml')}: file not found`);
    });
});
