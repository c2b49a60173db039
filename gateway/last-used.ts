import { Op } from 'sequelize';

import type { Models } from '../models';

/**
 * Keeps `api_keys.last_used_at` without a write per request: uses are noted in
 * memory and written in one statement per flush (every few seconds and at stop).
 */
export class LastUsedTracker {
    private pending = new Map<string, number>();
    private timer?: NodeJS.Timeout;

    constructor(private readonly models: Models, private readonly flushMilliseconds = 5000) {}

    touch(keyId: string): void {

        this.pending.set(keyId, Date.now());
    }

    start(): void {

        this.timer = setInterval(() => void this.flush().catch(() => undefined), this.flushMilliseconds);
        this.timer.unref();
    }

    async stop(): Promise<void> {

        clearInterval(this.timer);
        await this.flush();
    }

    async flush(): Promise<void> {

        if (this.pending.size === 0) {
            return;
        }

        const batch = this.pending;
        this.pending = new Map();
        const latest = new Date([...batch.values()].reduce((newest, usedAt) => Math.max(newest, usedAt), 0));
        // Within one flush interval the exact moment of use does not matter: one statement for all.
        await this.models.ApiKey.update({ last_used_at: latest }, { where: { id: { [Op.in]: [...batch.keys()] } }, silent: true });
    }
}
