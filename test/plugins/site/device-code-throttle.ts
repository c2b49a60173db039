import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { MemoryRateLimitStore } from '../../../gateway/rate-limit/memory-store';
import { countWrongCode, mayEnterCode } from '../../../plugins/site/device-code-throttle';
import type { SitePolicy } from '../../../plugins/site/policy';

export const lab = Lab.script();
const { describe, it } = lab;

const policy = {
    device_code_entry: { per_account: { limit: 3, window_seconds: 900 }, per_ip: { limit: 5, window_seconds: 900 } }
} as SitePolicy;

const windowStart = 20_000 * 86_400_000;

describe('the device-code throttle', () => {

    it('lets an account type a few codes that match nothing, then refuses it from any address until the window ends', async () => {

        let now = windowStart;
        const store = new MemoryRateLimitStore(() => now);
        for (let wrong = 0; wrong < 3; ++wrong) {
            expect(await mayEnterCode(store, policy, { userId: 'usr_guesser', ip: `192.0.2.${wrong}` })).to.be.true();
            await countWrongCode(store, policy, { userId: 'usr_guesser', ip: `192.0.2.${wrong}` });
        }

        expect(await mayEnterCode(store, policy, { userId: 'usr_guesser', ip: '198.51.100.1' })).to.be.false();
        expect(await mayEnterCode(store, policy, { userId: 'usr_other', ip: '192.0.2.1' })).to.be.true();

        now += 900_000;
        expect(await mayEnterCode(store, policy, { userId: 'usr_guesser', ip: '198.51.100.1' })).to.be.true();
    });

    it('limits an address whatever the account, and reading the limit counts nothing', async () => {

        const store = new MemoryRateLimitStore(() => windowStart);
        for (let account = 0; account < 5; ++account) {
            expect(await mayEnterCode(store, policy, { userId: `usr_${account}`, ip: '203.0.113.7' })).to.be.true();
            expect(await mayEnterCode(store, policy, { userId: `usr_${account}`, ip: '203.0.113.7' })).to.be.true();
            await countWrongCode(store, policy, { userId: `usr_${account}`, ip: '203.0.113.7' });
        }

        expect(await mayEnterCode(store, policy, { userId: 'usr_new', ip: '203.0.113.7' })).to.be.false();
        expect(await mayEnterCode(store, policy, { userId: 'usr_new', ip: '203.0.113.8' })).to.be.true();
    });
});
