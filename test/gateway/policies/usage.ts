import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { editedPolicies, loadError, loadServicePolicies, policiesWithout, policyFileNames } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

describe('loadServicePolicies(): usage.yaml', () => {

    it('loads the shipped metering policy', () => {

        const { usage } = loadServicePolicies(Path.join(projectRoot, 'policies'));
        expect(usage).to.equal({ flush_interval_seconds: 10, retention_days: 90, cleanup_schedule: '17 3 * * *' });
        expect(policyFileNames).to.include('usage.yaml');
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

        const dir = policiesWithout('usage.yaml');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'usage.yaml')}: file not found`);
    });
});
