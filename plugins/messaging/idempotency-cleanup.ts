import type { PolicyStore } from '../../gateway/policies/policy-store';
import { JobFailures } from '../../lib/job-failures';
import type { Log } from '../../lib/logger';
import { deleteExpiredMessagingIdempotencyKeys } from '../../lib/messaging/idempotency';
import { PolicyCronJobs } from '../../lib/policy-cron';
import type { Models } from '../../models';

/** Deletes the messaging writes' Idempotency-Keys past their 24 hours, on the schedule that cleans the messaging change log (policies/messaging.yaml). */
export function messagingIdempotencyCleanup(models: Models, policyStore: PolicyStore, log: Log): PolicyCronJobs {

    const failures = new JobFailures(log, ['messaging'], 'Deleting expired messaging idempotency keys');
    return new PolicyCronJobs(policyStore, [{
        schedule: (policies) => policies.messaging.changes.cleanup_schedule,
        run: () => void failures.run(() => deleteExpiredMessagingIdempotencyKeys(models))
    }]);
}
