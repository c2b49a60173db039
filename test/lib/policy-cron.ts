import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { PolicyStore } from '../../gateway/policies/policy-store';
import { policyFiles } from '../../lib/deployment';
import { PolicyCronJobs } from '../../lib/policy-cron';
import { editPolicyFile } from '../helpers/policy-files';
import { copyPolicies } from '../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds, up to five seconds (a busy machine delays a tick); whether it does. */
async function until(condition: () => boolean): Promise<boolean> {

    for (let waited = 0; !condition() && waited < 5000; waited += 50) {
        await pause(50);
    }

    return condition();
}

/** Two jobs on the webhooks schedules of a copy of the shipped policies (sweep: every second; clean-up: hourly), counting their runs. */
function countedJobs() {

    const dir = copyPolicies();
    const log: string[] = [];
    const store = PolicyStore.open(dir, (_tags, message) => log.push(message), policyFiles);
    const runs = { sweep: 0, cleanup: 0 };
    const jobs = new PolicyCronJobs(store, [
        { schedule: (policies) => policies.webhooks.schedules.sweep, run: () => runs.sweep++ },
        { schedule: (policies) => policies.webhooks.schedules.cleanup, run: () => runs.cleanup++ }
    ]);
    return { dir, store, runs, jobs, log };
}

describe('PolicyCronJobs', () => {

    it('runs each job on its schedule, reschedules one whose schedule a reload changed, and keeps the others running', async () => {

        const { dir, store, runs, jobs } = countedJobs();
        jobs.start();
        try {
            expect(await until(() => runs.sweep >= 1)).to.be.true();
            expect(runs.cleanup).to.equal(0);         // hourly at :41 (unless this second is one)

            editPolicyFile(dir, 'webhooks.yaml', 'cleanup: "41 * * * *"', 'cleanup: "* * * * * *"');
            expect(store.reload()).to.be.true();
            const sweepsBefore = runs.sweep;

            expect(await until(() => runs.cleanup >= 1)).to.be.true();
            expect(await until(() => runs.sweep > sweepsBefore)).to.be.true();
        }
        finally {
            jobs.stop();
        }
    });

    it('keeps the schedules in force when an edit is refused', async () => {

        const { dir, store, runs, jobs, log } = countedJobs();
        jobs.start();
        try {
            editPolicyFile(dir, 'webhooks.yaml', 'sweep: "* * * * * *"', 'sweep: "every second"');
            expect(store.reload()).to.be.false();
            expect(log[0]).to.include('the last good ones stay in force');
            const sweepsBefore = runs.sweep;

            expect(await until(() => runs.sweep > sweepsBefore)).to.be.true();
        }
        finally {
            jobs.stop();
        }
    });

    it('stops every job, and follows reloads no more', async () => {

        const { dir, store, runs, jobs } = countedJobs();
        jobs.start();
        jobs.stop();
        // Starting may run the sweep once, when a second begins between node-cron's two readings of the clock.
        const whenStopped = { ...runs };
        expect(store.listenerCount('reloaded')).to.equal(0);

        editPolicyFile(dir, 'webhooks.yaml', 'cleanup: "41 * * * *"', 'cleanup: "* * * * * *"');
        expect(store.reload()).to.be.true();
        await pause(1200);

        expect(runs).to.equal(whenStopped);
        expect(runs.cleanup).to.equal(0);
    });
});
