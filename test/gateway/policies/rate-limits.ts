import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { editedPolicies, loadError, loadServicePolicies } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it } = lab;

const standardPerKey = 'per_key:\n      limit: 600\n      window_seconds: 60';

/** A copy of the shipped policies whose standard preset allows `limit` requests per key every `windowSeconds`. */
function withStandardPerKey(limit: string, windowSeconds: string): string {

    return editedPolicies('rate-limits.yaml', standardPerKey, `per_key:\n      limit: ${limit}\n      window_seconds: ${windowSeconds}`);
}

describe('loadServicePolicies(): rate-limits.yaml', () => {

    it('accepts a window of a day and a limit of 15 digits', () => {

        const { rateLimits } = loadServicePolicies(withStandardPerKey('999999999999999', '86400'));
        expect(rateLimits.get('standard')!.per_key).to.equal({ limit: 999_999_999_999_999, window_seconds: 86_400 });
    });

    it('refuses a window longer than a day', () => {

        for (const windowSeconds of ['86401', '1000000000000']) {
            const dir = withStandardPerKey('600', windowSeconds);
            expect(loadError(dir)).to.equal(`${Path.join(dir, 'rate-limits.yaml')}: presets[0].per_key.window_seconds: must be less than or equal to 86400`);
        }
    });

    it('refuses a limit longer than the 15 digits RateLimit-Policy can carry', () => {

        const dir = withStandardPerKey('1000000000000000', '60');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'rate-limits.yaml')}: presets[0].per_key.limit: must be less than or equal to 999999999999999`);
    });

    it('refuses a limit beyond the integers JavaScript holds exactly', () => {

        const dir = withStandardPerKey('9007199254740993', '60');
        expect(loadError(dir)).to.equal(`${Path.join(dir, 'rate-limits.yaml')}: presets[0].per_key.limit: must be a safe number`);
    });
});
