import Cron, { type ScheduledTask } from 'node-cron';

import type { WebhooksPolicy } from '../../gateway/policies/types';
import { cleanUp } from './clean-up';
import type { WebhooksContext } from './context';
import type { DeliveryWorker } from './worker';

/**
 * The periodic work (node-cron, schedules from the policy): the sweep wakes the worker,
 * which fans out any change the bus did not announce and claims due retries; the
 * clean-up trims old logs and events. A policy reload with other schedules reschedules.
 */
export class WebhookTasks {

    private tasks: ScheduledTask[] = [];
    private schedules?: WebhooksPolicy['schedules'];

    constructor(private readonly context: WebhooksContext, private readonly worker: DeliveryWorker) {}

    start(): void {

        this.schedule();
        this.context.policyStore.on('reloaded', this.onReload);
    }

    stop(): void {

        this.context.policyStore.removeListener('reloaded', this.onReload);
        this.tasks.forEach((task) => task.stop());
        this.tasks = [];
    }

    private readonly onReload = (): void => {

        const schedules = this.context.policyStore.current().webhooks.schedules;
        if (schedules.sweep !== this.schedules?.sweep || schedules.cleanup !== this.schedules?.cleanup) {
            this.tasks.forEach((task) => task.stop());
            this.schedule();
        }
    };

    private schedule(): void {

        this.schedules = this.context.policyStore.current().webhooks.schedules;
        this.tasks = [
            Cron.schedule(this.schedules.sweep, () => this.worker.wake(true)),
            Cron.schedule(this.schedules.cleanup, () => {

                cleanUp(this.context).catch((error: Error) => this.context.log(['webhooks', 'error'], `clean-up: ${error.stack}`));
            })
        ];
    }
}
