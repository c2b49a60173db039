import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import type { SitePolicy } from '../../../plugins/site/policy';
import { MemoryRateLimitStore } from '../../../gateway/rate-limit/memory-store';
import { accountSubject, countFailure, mayAttempt, type SignInAttempt } from '../../../plugins/site/sign-in-throttle';

export const lab = Lab.script();
const { describe, it } = lab;

const policy: SitePolicy = {
    sign_in_throttle: {
        per_account_and_address: { free_failures: 3, first_delay_seconds: 1, max_delay_seconds: 8, window_seconds: 86_400 },
        per_account: { limit: 100, window_seconds: 86_400 },
        per_ip: { limit: 100, window_seconds: 86_400 }
    },
    sessions: { lifetime_hours: 12, two_factor_minutes: 5 },
    device_code_entry: { per_account: { limit: 5, window_seconds: 900 }, per_ip: { limit: 20, window_seconds: 900 } }
};

// A day's start: every window of the test (1 to 8 s, a day) starts there, so each wait ends where the test expects.
const dayStart = 20_000 * 86_400_000;

describe('the sign-in throttle', () => {

    it('lets one address fail on one account a few times freely, then makes it wait twice as long after each failure, up to the longest delay', async () => {

        let now = dayStart;
        const store = new MemoryRateLimitStore(() => now);
        const attempt: SignInAttempt = { account: accountSubject('someone@example.com'), ip: '192.0.2.1', knownDevice: true };
        for (let failure = 0; failure < 2; ++failure) {
            expect(await mayAttempt(store, policy, attempt)).to.be.true();
            await countFailure(store, policy, attempt);
        }

        // Failures 3 to 7, each at the start of the (clock-aligned) wait it earns: 1, 2, 4, 8 and 8 s.
        for (const seconds of [1, 2, 4, 8, 8]) {
            now = Math.ceil(now / (seconds * 1000)) * seconds * 1000;
            expect(await mayAttempt(store, policy, attempt)).to.be.true();
            await countFailure(store, policy, attempt);

            expect(await mayAttempt(store, policy, attempt)).to.be.false();
            now += seconds * 1000 - 1;
            expect(await mayAttempt(store, policy, attempt)).to.be.false();
            now += 1;
            expect(await mayAttempt(store, policy, attempt)).to.be.true();
        }

        // Another address, and the same address for another account, wait for nothing.
        expect(await mayAttempt(store, policy, { ...attempt, ip: '192.0.2.2' })).to.be.true();
        expect(await mayAttempt(store, policy, { ...attempt, account: accountSubject('other@example.com') })).to.be.true();
        await store.close();
    });

    it('spares a known browser the account\'s limit, which failures from unknown ones reach', async () => {

        const store = new MemoryRateLimitStore();
        const limited: SitePolicy = { ...policy, sign_in_throttle: { ...policy.sign_in_throttle, per_account: { limit: 2, window_seconds: 86_400 } } };
        const account = accountSubject('someone@example.com');
        await countFailure(store, limited, { account, ip: '192.0.2.1', knownDevice: false });
        await countFailure(store, limited, { account, ip: '192.0.2.2', knownDevice: false });

        expect(await mayAttempt(store, limited, { account, ip: '192.0.2.3', knownDevice: false })).to.be.false();
        expect(await mayAttempt(store, limited, { account, ip: '192.0.2.3', knownDevice: true })).to.be.true();
        await store.close();
    });
});
