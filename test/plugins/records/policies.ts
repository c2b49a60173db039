import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { editedPolicies, loadError, loadServicePolicies, policiesWithout, policyFileNames } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

describe('loadServicePolicies(): records.yaml', () => {

    it('loads the shipped schedule of the idempotency keys\' cleanup', () => {

        const { records } = loadServicePolicies(Path.join(projectRoot, 'policies'));
        expect(records).to.equal({ idempotency_keys: { cleanup_schedule: '41 * * * *' } });
        expect(policyFileNames).to.include('records.yaml');
    });

    it('refuses a clean-up schedule that is not a cron expression', () => {

        const dir = editedPolicies('records.yaml', 'cleanup_schedule: "41 * * * *"', 'cleanup_schedule: "hourly"');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'records.yaml')}: idempotency_keys.cleanup_schedule: "hourly" is not a cron expression (e.g. "17 3 * * *": daily at 03:17)`);
    });

    it('refuses a missing records.yaml', () => {

        const dir = policiesWithout('records.yaml');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'records.yaml')}: file not found`);
    });
});
