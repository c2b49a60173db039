import type { SitePolicy } from './policy';
import { counting, reading } from './sign-in-throttle';
import type { RateLimitRule, RateLimitStore } from '../../gateway/rate-limit/types';

/** Who types a device's user code: the signed-in account and the client address. */
export interface CodeEntry {
    userId: string;
    ip: string;
}

/** The codes that matched no request, counted against the account and against the address. */
function wrongCodeRules(policy: SitePolicy, entry: CodeEntry): RateLimitRule[] {

    const { per_account: account, per_ip: ip } = policy.device_code_entry;
    return [
        { policy: 'device-code-account', subject: entry.userId, limit: account.limit, windowSeconds: account.window_seconds },
        { policy: 'device-code-ip', subject: entry.ip, limit: ip.limit, windowSeconds: ip.window_seconds }
    ];
}

/** Whether `entry` may look a code up now: neither its account nor its address has used up its wrong codes. Counts nothing. */
export async function mayEnterCode(store: RateLimitStore, policy: SitePolicy, entry: CodeEntry): Promise<boolean> {

    const rules = wrongCodeRules(policy, entry);
    const { states } = await store.hit(rules.map(reading));
    return states.every((state, i) => state.count < rules[i].limit);
}

/** Counts a code that matched no request. */
export async function countWrongCode(store: RateLimitStore, policy: SitePolicy, entry: CodeEntry): Promise<void> {

    await store.hit(wrongCodeRules(policy, entry).map(counting));
}
