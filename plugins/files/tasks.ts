import { JobFailures } from '../../lib/job-failures';
import { PolicyCronJobs } from '../../lib/policy-cron';
import type { ListedBlob } from '../../lib/storage';
import type { FilesContext } from './context';
import { sweepUnreferencedFiles } from './unreferenced-files';

/**
 * The files plugin's periodic work while the server runs: the sweep of unreferenced files,
 * on the schedule of policies/files.yaml. One sweep at a time in this process: a tick or
 * call while one is under way (a large store, a slow disk) joins it. Sweeps of several
 * instances may overlap: each removal is decided under the blob's lock, so that only
 * repeats work.
 */
export class FilesTasks {

    private readonly schedule: PolicyCronJobs;
    private running?: Promise<ListedBlob[]>;
    private stopping = new AbortController();

    constructor(private readonly context: FilesContext) {

        const sweepFailures = new JobFailures(context.log, ['files'], 'The sweep of unreferenced files');
        this.schedule = new PolicyCronJobs(context.policyStore, [{
            schedule: (policies) => policies.files.unreferenced_files.sweep_schedule,
            run: () => void sweepFailures.run(() => this.sweep())
        }]);
    }

    start(): void {

        this.stopping = new AbortController();
        this.schedule.start();
    }

    /** Stops the schedule, and any sweep after the blob at hand, so nothing queries the database once it closes. */
    async stop(): Promise<void> {

        this.schedule.stop();
        this.stopping.abort();
        // A failure was reported to whoever started the sweep.
        await this.running?.catch(() => undefined);
    }

    /** Removes the stored files no record holds (see sweepUnreferencedFiles); resolves to them. */
    sweep(): Promise<ListedBlob[]> {

        this.running ??= sweepUnreferencedFiles(this.context, this.stopping.signal).finally(() => {

            this.running = undefined;
        });
        return this.running;
    }
}
