import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { editedPolicies, loadErrorIn, loadServicePolicies, policyFileNames } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

describe('loadServicePolicies(): webhooks.yaml', () => {

    it('loads the shipped destination rules, delivery settings and retry schedule', () => {

        const { webhooks } = loadServicePolicies(Path.join(projectRoot, 'policies'));

        expect(webhooks.destinations).to.equal({
            schemes: ['https'],
            ports: [443],
            allowed_ranges: ['unicast'],
            blocked_cidrs: ['::/3', '4000::/2', '8000::/1'],
            blocked_hosts: ['localhost']
        });
        expect(webhooks.retries.schedule_seconds).to.equal([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
        expect(webhooks.delivery).to.include({ response_excerpt_bytes: 16384, lease_seconds: 60 });
        expect(webhooks.endpoints).to.equal({ disable_after_failing_seconds: 432000, secret_rotation_overlap_seconds: 86400 });
        expect(webhooks.retention.delivery_log_days).to.equal(30);
    });

    it('gives each plan its number of webhook endpoints; a plan without one has none', () => {

        const { plans } = loadServicePolicies(Path.join(projectRoot, 'policies'));

        expect(plans.get('lite')!.webhook_endpoints).to.not.exist();
        expect(plans.get('family')!.webhook_endpoints).to.equal(5);
        expect(plans.get('max')!.webhook_endpoints).to.equal(20);
        expect(plans.get('lifetime')!.webhook_endpoints).to.equal(20);
    });

    it('is watched and reloaded like the other policy files', () => {

        expect(policyFileNames).to.include('webhooks.yaml');
    });

    it('refuses a range name ipaddr.js does not know', () => {

        const dir = editedPolicies('webhooks.yaml', 'allowed_ranges: [unicast]', 'allowed_ranges: [unicast, public]');
        expect(loadErrorIn(dir, 'webhooks.yaml')).to.startWith('destinations.allowed_ranges[1]: "public" is not a range name of ipaddr.js (unicast, unspecified, broadcast, multicast, linkLocal, loopback, carrierGradeNat, private, reserved');
    });

    it('refuses a blocked range that is not a CIDR', () => {

        const dir = editedPolicies('webhooks.yaml', '- "::/3"', '- "10.0.0.0/33"');
        expect(loadErrorIn(dir, 'webhooks.yaml')).to.equal('destinations.blocked_cidrs[0]: "10.0.0.0/33" is not an address range such as 10.0.0.0/8 or fc00::/7');
    });

    it('refuses any scheme but https', () => {

        const dir = editedPolicies('webhooks.yaml', 'schemes: [https]', 'schemes: [https, http]');
        expect(loadErrorIn(dir, 'webhooks.yaml')).to.equal('destinations.schemes[1]: webhooks are delivered over https only');
    });

    it('refuses a lease no longer than one attempt may take', () => {

        const dir = editedPolicies('webhooks.yaml', 'lease_seconds: 60', 'lease_seconds: 20');
        expect(loadErrorIn(dir, 'webhooks.yaml')).to.equal('delivery.lease_seconds: must be longer than connect_timeout_ms and response_timeout_ms together (20 s)');
    });

    it('refuses a timeout longer than a timer can wait', () => {

        // 2^31 ms: setTimeout() would fire at once, and every attempt would fail as timed out.
        const dir = editedPolicies('webhooks.yaml', 'response_timeout_ms: 15000', 'response_timeout_ms: 2147483648');
        expect(loadErrorIn(dir, 'webhooks.yaml')).to.startWith('delivery.response_timeout_ms: must be less than or equal to 2147483647\n');
    });

    it('refuses a schedule that is not a cron expression', () => {

        const dir = editedPolicies('webhooks.yaml', 'sweep: "* * * * * *"', 'sweep: "every second"');
        expect(loadErrorIn(dir, 'webhooks.yaml')).to.equal('schedules.sweep: "every second" is not a cron expression (e.g. "17 3 * * *": daily at 03:17)');
    });

    it('refuses a negative number of webhook endpoints', () => {

        const dir = editedPolicies('plans.yaml', 'webhook_endpoints: 5', 'webhook_endpoints: -1');
        expect(loadErrorIn(dir, 'plans.yaml')).to.equal('plans[1].webhook_endpoints: must be greater than or equal to 0');
    });
});
