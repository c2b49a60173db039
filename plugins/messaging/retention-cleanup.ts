import { JobFailures } from '../../lib/job-failures';
import type { Log } from '../../lib/logger';
import type { MessagingContext } from '../../lib/messaging/context';
import { deleteExpiredMessagingIdempotencyKeys } from '../../lib/messaging/idempotency';
import { deleteExpiredChanges } from '../../lib/messaging/sync';
import { PolicyCronJobs } from '../../lib/policy-cron';

/**
 * What messaging keeps for a while only, deleted past its time on policies/messaging.yaml's `changes.cleanup_schedule`
 * (following reloads): the change log past its retention, and the writes' Idempotency-Keys past their 24 hours.
 */
export function messagingRetentionCleanup(context: MessagingContext, log: Log): PolicyCronJobs {

    const changes = new JobFailures(log, ['messaging'], 'Deleting expired messaging changes');
    const keys = new JobFailures(log, ['messaging'], 'Deleting expired messaging idempotency keys');
    return new PolicyCronJobs(context.policyStore, [
        { schedule: (policies) => policies.messaging.changes.cleanup_schedule, run: () => void changes.run(() => deleteExpiredChanges(context)) },
        { schedule: (policies) => policies.messaging.changes.cleanup_schedule, run: () => void keys.run(() => deleteExpiredMessagingIdempotencyKeys(context.models)) }
    ]);
}
