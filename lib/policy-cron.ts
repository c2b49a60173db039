import Cron, { type ScheduledTask } from 'node-cron';

import type { PolicyStore } from '../gateway/policies/policy-store';
import type { Policies } from '../gateway/policies/policy-file';

/** Periodic work whose cron expression is policy data. */
export interface PolicyCronJob {
    /** The job's cron expression (node-cron syntax) in `policies`. */
    schedule(policies: Policies): string;
    run(): void;
}

/**
 * Cron jobs scheduled from the policies in force (node-cron): a policy reload that changes a
 * job's expression reschedules that job, so an edited schedule, like any policy edit, takes
 * effect without a restart. The others keep running untouched.
 */
export class PolicyCronJobs {

    private readonly scheduled = new Map<PolicyCronJob, { expression: string; task: ScheduledTask }>();

    constructor(private readonly policyStore: PolicyStore, private readonly jobs: readonly PolicyCronJob[]) {}

    start(): void {

        this.onReload(this.policyStore.current());
        this.policyStore.on('reloaded', this.onReload);
    }

    stop(): void {

        this.policyStore.removeListener('reloaded', this.onReload);
        for (const { task } of this.scheduled.values()) {
            task.stop();
        }

        this.scheduled.clear();
    }

    private readonly onReload = (policies: Policies): void => {

        for (const job of this.jobs) {
            const expression = job.schedule(policies);
            const current = this.scheduled.get(job);
            if (current?.expression !== expression) {
                current?.task.stop();
                this.scheduled.set(job, { expression, task: Cron.schedule(expression, () => job.run()) });
            }
        }
    };
}
