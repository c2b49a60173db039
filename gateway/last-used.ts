import { Op } from 'sequelize';

import { JobFailures } from '../lib/job-failures';
import type { Log } from '../lib/logger';
import type { Models } from '../models';

/**
 * Keeps `api_keys.last_used_at` without a write per request: uses are noted in
 * memory and written in one statement per flush (every few seconds and at stop).
 * Flushes run one at a time; a failed one keeps its uses for the next.
 */
export class LastUsedTracker {
    private pending = new Map<string, number>();
    private timer?: NodeJS.Timeout;
    private flushing: Promise<void> = Promise.resolve();
    private readonly failures: JobFailures;

    constructor(private readonly models: Models, log: Log, private readonly flushMilliseconds = 5000) {

        this.failures = new JobFailures(log, ['gateway'], 'Writing when API keys were last used (kept for the next flush)');
    }

    touch(keyId: string): void {

        this.pending.set(keyId, Date.now());
    }

    start(): void {

        this.timer = setInterval(() => void this.flush(), this.flushMilliseconds);
        this.timer.unref();
    }

    async stop(): Promise<void> {

        clearInterval(this.timer);
        await this.flush();
    }

    /** Writes the uses so far; never rejects (a failure is logged, and its uses wait for the next flush). */
    flush(): Promise<void> {

        this.flushing = this.flushing.then(() => this.failures.run(() => this.writePending()));
        return this.flushing;
    }

    private async writePending(): Promise<void> {

        if (this.pending.size === 0) {
            return;
        }

        const batch = this.pending;
        this.pending = new Map();
        const latest = new Date([...batch.values()].reduce((newest, usedAt) => Math.max(newest, usedAt), 0));
        try {
            // Within one flush interval the exact moment of use does not matter: one statement for all.
            await this.models.ApiKey.update({ last_used_at: latest }, { where: { id: { [Op.in]: [...batch.keys()] } }, silent: true });
        }
        catch (error) {
            for (const [keyId, usedAt] of batch) {
                this.pending.set(keyId, Math.max(usedAt, this.pending.get(keyId) ?? 0));
            }

            throw error;
        }
    }
}
