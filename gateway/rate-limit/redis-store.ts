import type { RedisOutage } from '../../lib/redis-outage';
import { answeredInTime, type RedisClient } from '../../lib/redis';
import { currentWindow, decide, type WindowUsage } from './decide';
import { MemoryRateLimitStore } from './memory-store';
import type { RateLimitDecision, RateLimitRule, RateLimitStore } from './types';

// Checks and counts every rule of one request in a single atomic step, so instances
// sharing this Redis can never admit more than a limit between them.
// KEYS[i]: rule i's counter. ARGV[2i-1]: its limit. ARGV[2i]: ms until its window ends.
// Counts only when every rule has room (the same `used < limit` test as decide()).
// Returns, per rule, the count before this request and the counter's remaining TTL in ms.
const hitScript = `
local used = {}
local admitted = true
for i, key in ipairs(KEYS) do
    used[i] = tonumber(redis.call('GET', key) or '0')
    if used[i] >= tonumber(ARGV[2 * i - 1]) then admitted = false end
end
local result = {}
for i, key in ipairs(KEYS) do
    local ttl = tonumber(ARGV[2 * i])
    if admitted and redis.call('INCR', key) == 1 then
        redis.call('PEXPIRE', key, ttl)
    end
    local pttl = redis.call('PTTL', key)
    if pttl > 0 then ttl = pttl end
    result[2 * i - 1] = used[i]
    result[2 * i] = ttl
end
return result
`;

/**
 * Rate-limit counters in Redis, shared by every instance. Borrows the client: closing the store leaves it open.
 *
 * While Redis does not answer, each instance counts in its own memory instead (`MemoryRateLimitStore`): a client
 * is still limited, by every instance it reaches, rather than let through unlimited or refused altogether
 * (Kong's rate limiting lets requests through when its store fails; a family API's limits also protect the database).
 */
export class RedisRateLimitStore implements RateLimitStore {

    private scriptSha?: Promise<string>;
    private closed = false;
    private readonly fallback = new MemoryRateLimitStore();

    /** @param keyPrefix prepended to every key, e.g. the deployment's `fr:`; keys read `<prefix>rl:<policy>:<subject>:<window seconds>:<window start>`. */
    constructor(private readonly client: RedisClient, private readonly keyPrefix: string, private readonly outage: RedisOutage) {}

    async hit(rules: readonly RateLimitRule[]): Promise<RateLimitDecision> {

        if (this.closed) {
            throw new Error('RedisRateLimitStore is closed');
        }

        if (this.outage.failing) {
            return this.fallback.hit(rules);
        }

        const now = Date.now();
        const windows = rules.map((rule) => currentWindow(rule, now));
        let reply: number[];
        try {
            reply = await answeredInTime(this.runHitScript({
                keys: windows.map((window) => this.keyPrefix + window.id),
                arguments: rules.flatMap((rule, i) => [String(rule.limit), String(windows[i].msUntilReset)])
            })) as number[];
        }
        catch (error) {
            this.outage.failed(error);
            return this.fallback.hit(rules);
        }

        this.outage.answered();
        const usage: WindowUsage[] = rules.map((_, i) => ({ used: reply[2 * i], ttlMs: reply[2 * i + 1] }));
        return decide(rules, usage);
    }

    async close(): Promise<void> {

        this.closed = true;
        await this.fallback.close();
    }

    private async runHitScript(options: { keys: string[]; arguments: string[] }): Promise<unknown> {

        try {
            return await this.client.evalSha(await this.loadScript(), options);
        }
        catch (error) {
            // Redis forgets loaded scripts on restart, failover or SCRIPT FLUSH;
            // EVAL sends the body and caches it again, so EVALSHA works next time.
            if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
                return this.client.eval(hitScript, options);
            }

            throw error;
        }
    }

    private loadScript(): Promise<string> {

        this.scriptSha ??= this.client.scriptLoad(hitScript).catch((error: unknown) => {

            this.scriptSha = undefined;         // Retry the load on the next hit, e.g. once Redis is back
            throw error;
        });

        return this.scriptSha;
    }
}
