import type { WebhooksPolicy } from './policy';

/** Seconds a Retry-After header asks for (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {

    if (!header) {
        return undefined;
    }

    if (/^\d+$/.test(header.trim())) {
        return Number(header.trim());
    }

    const at = Date.parse(header);
    return Number.isNaN(at) ? undefined : Math.max(0, (at - now.getTime()) / 1000);
}

/**
 * When the attempt after `attemptsMade` failed attempts is due, or undefined when the
 * schedule is spent (the delivery is given up). The schedule's wait is stretched by
 * random jitter; a Retry-After is honoured up to the policy's bound (never sooner than
 * the schedule).
 */
export function nextAttemptAt(attemptsMade: number, retries: WebhooksPolicy['retries'], now: Date, retryAfter?: number): Date | undefined {

    const scheduled = retries.schedule_seconds[attemptsMade];
    if (scheduled === undefined) {
        return undefined;
    }

    const jittered = scheduled * (1 + Math.random() * retries.jitter);
    const asked = retryAfter === undefined ? 0 : Math.min(retryAfter, retries.retry_after_max_seconds);
    return new Date(now.getTime() + Math.max(jittered, asked) * 1000);
}
