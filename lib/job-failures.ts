import { databaseUnavailable } from './database-unavailable';
import type { Log } from './logger';

/**
 * What one piece of background work (a scheduled job, the webhook worker's loop) logs when it
 * fails. A bug is logged with its stack, every time. A database that does not answer is an outage,
 * not a bug, and the work runs again on its schedule: one warning line when the outage begins and
 * one when the work succeeds again, not a stack trace every run (the webhook sweep runs every
 * second, on every instance).
 */
export class JobFailures {

    private runsMissed = 0;

    /** `what`: the work, as its log lines begin ("The webhook delivery worker"). */
    constructor(private readonly log: Log, private readonly tags: readonly string[], private readonly what: string) {}

    failed(error: unknown): void {

        const unavailable = databaseUnavailable(error);
        if (!unavailable) {
            this.log([...this.tags, 'error'], `${this.what} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
            return;
        }

        if (this.runsMissed++ === 0) {
            this.log([...this.tags, 'unavailable', 'warn'], `${this.what} did not run: the database is ${unavailable.reason} (${unavailable.message}); it runs again on its schedule, and says here when it does`);
        }
    }

    succeeded(): void {

        if (this.runsMissed > 0) {
            this.log([...this.tags, 'unavailable'], `${this.what} runs again: the database answers (${this.runsMissed === 1 ? '1 run' : `${this.runsMissed} runs`} missed)`);
            this.runsMissed = 0;
        }
    }

    /** Runs `work`, saying what became of it; never rejects. */
    async run(work: () => Promise<unknown>): Promise<void> {

        try {
            await work();
            this.succeeded();
        }
        catch (error) {
            this.failed(error);
        }
    }
}
