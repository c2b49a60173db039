import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { editedPolicies, loadError, loadServicePolicies, policyFileNames } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

describe('loadServicePolicies(): site.yaml', () => {

    it('loads the shipped sign-in and device-code throttling and session lifetimes', () => {

        const { site } = loadServicePolicies(Path.join(projectRoot, 'policies'));
        expect(site).to.equal({
            sign_in_throttle: {
                per_account_and_address: { free_failures: 5, first_delay_seconds: 1, max_delay_seconds: 900, window_seconds: 900 },
                per_account: { limit: 10, window_seconds: 900 },
                per_ip: { limit: 100, window_seconds: 900 }
            },
            sessions: { lifetime_hours: 12, two_factor_minutes: 5 },
            device_code_entry: { per_account: { limit: 5, window_seconds: 900 }, per_ip: { limit: 20, window_seconds: 900 } }
        });
        expect(policyFileNames).to.include('site.yaml');
    });

    it('refuses a throttle that admits nobody', () => {

        const dir = editedPolicies('site.yaml', 'limit: 10', 'limit: 0');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'site.yaml')}: sign_in_throttle.per_account.limit: must be greater than or equal to 1`);
    });

    it('refuses a throttle window longer than a day, as rate-limits.yaml does', () => {

        const dir = editedPolicies('site.yaml', 'window_seconds: 900', 'window_seconds: 604800');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'site.yaml')}: sign_in_throttle.per_account_and_address.window_seconds: must be less than or equal to 86400`);
    });

    it('refuses a longest sign-in delay shorter than the first', () => {

        const dir = editedPolicies('site.yaml', 'max_delay_seconds: 900', 'max_delay_seconds: 0');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'site.yaml')}: sign_in_throttle.per_account_and_address.max_delay_seconds: must be greater than or equal to ref:first_delay_seconds`);
    });

    it('refuses sessions longer than 30 days', () => {

        const dir = editedPolicies('site.yaml', 'lifetime_hours: 12', 'lifetime_hours: 10000');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'site.yaml')}: sessions.lifetime_hours: must be less than or equal to 720`);
    });

    it('refuses a setting it does not know, so a typo is never silently ignored', () => {

        const dir = editedPolicies('site.yaml', '  two_factor_minutes: 5', '  two_factor_minutes: 5\n  idle_minutes: 30');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'site.yaml')}: sessions.idle_minutes: is not allowed`);
    });
});
