import { JobFailures } from '../../lib/job-failures';
import type { Log } from '../../lib/logger';
import type { MessagingContext } from '../../lib/messaging/context';
import { deleteExpiredChanges } from '../../lib/messaging/sync';
import { PolicyCronJobs } from '../../lib/policy-cron';

/** The messaging changes past their retention deleted on policies/messaging.yaml's `changes.cleanup_schedule`, following reloads. */
export function messagingChangesCleanup(context: MessagingContext, log: Log): PolicyCronJobs {

    const failures = new JobFailures(log, ['messaging'], 'Deleting expired messaging changes');
    return new PolicyCronJobs(context.policyStore, [{
        schedule: (policies) => policies.messaging.changes.cleanup_schedule,
        run: () => void failures.run(() => deleteExpiredChanges(context))
    }]);
}
