import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { editedPolicies, loadError, loadServicePolicies, policiesWithout, policyFileNames } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

describe('loadServicePolicies(): stream.yaml', () => {

    it('loads the shipped retention, retry hint, heartbeat and limits', () => {

        const { stream } = loadServicePolicies(Path.join(projectRoot, 'policies'));

        expect(stream).to.equal({ retention_days: 7, retry_ms: 3000, heartbeat_seconds: 15, max_buffered_events: 1000, max_streams_per_key: 10 });
    });

    it('is watched and reloaded like the other policy files', () => {

        expect(policyFileNames).to.include('stream.yaml');
    });

    it('accepts a fractional heartbeat (tests use short ones)', () => {

        expect(loadServicePolicies(editedPolicies('stream.yaml', 'heartbeat_seconds: 15', 'heartbeat_seconds: 0.05')).stream.heartbeat_seconds).to.equal(0.05);
    });

    it('refuses a heartbeat too slow for proxies that drop a connection idle for a minute', () => {

        const dir = editedPolicies('stream.yaml', 'heartbeat_seconds: 15', 'heartbeat_seconds: 60');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'stream.yaml')}: heartbeat_seconds: must be less than or equal to 55`);
    });

    it('refuses a retention shorter than a day, fractional counts and a cap of no streams', () => {

        expect(loadError(editedPolicies('stream.yaml', 'retention_days: 7', 'retention_days: 0'))).to.contain('retention_days: must be greater than or equal to 1');
        expect(loadError(editedPolicies('stream.yaml', 'max_buffered_events: 1000', 'max_buffered_events: 10.5'))).to.contain('max_buffered_events: must be an integer');
        expect(loadError(editedPolicies('stream.yaml', 'max_streams_per_key: 10', 'max_streams_per_key: 0'))).to.contain('max_streams_per_key: must be greater than or equal to 1');
    });

    it('refuses a missing setting and an unknown one', () => {

        expect(loadError(editedPolicies('stream.yaml', 'retry_ms: 3000\n', ''))).to.contain('retry_ms: is required');
        expect(loadError(editedPolicies('stream.yaml', 'retry_ms: 3000\n', 'retry_ms: 3000\nreplay_days: 3\n'))).to.contain('replay_days: is not allowed');
    });

    it('refuses a missing stream.yaml', () => {

        const dir = policiesWithout('stream.yaml');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'stream.yaml')}: file not found`);
    });
});
