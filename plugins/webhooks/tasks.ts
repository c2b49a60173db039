import { JobFailures } from '../../lib/job-failures';
import { PolicyCronJobs } from '../../lib/policy-cron';
import { cleanUp } from './clean-up';
import type { WebhooksContext } from './context';
import type { DeliveryWorker } from './worker';

/**
 * The periodic work, on the schedules of policies/webhooks.yaml: the sweep wakes the worker,
 * which fans out any change the bus did not announce and claims due retries; the
 * clean-up trims old logs and events.
 */
export function webhookTasks(context: WebhooksContext, worker: DeliveryWorker): PolicyCronJobs {

    const cleanUpFailures = new JobFailures(context.log, ['webhooks'], 'The clean-up of webhook deliveries and change events');
    return new PolicyCronJobs(context.policyStore, [
        { schedule: (policies) => policies.webhooks.schedules.sweep, run: () => worker.wake(true) },
        {
            schedule: (policies) => policies.webhooks.schedules.cleanup,
            run: () => void cleanUpFailures.run(() => cleanUp(context))
        }
    ]);
}
