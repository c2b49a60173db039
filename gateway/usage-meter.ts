import { Op, type Sequelize } from 'sequelize';

import { JobFailures } from '../lib/job-failures';
import type { Log } from '../lib/logger';
import { PolicyCronJobs } from '../lib/policy-cron';
import type { Models } from '../models';
import type { StatusClass } from '../models/usage-counter';
import type { RunInTransaction } from '../lib/database';
import type { PolicyStore } from './policies/policy-store';

/** One API request as the gateway saw it. */
export interface MeteredRequest {
    keyId: string;
    familyLongId: string;
    routeGroup: string;
    /** Method and path template: `GET /api/v1/persons/{id}`. */
    route: string;
    statusCode: number;
    at?: number;
}

interface Count {
    hour: number;
    keyId: string;
    familyLongId: string;
    routeGroup: string;
    route: string;
    statusClass: StatusClass;
    requests: number;
}

const hourMs = 3_600_000;
// Rows per INSERT: seven values each stays far below SQLite's and PostgreSQL's parameter limits.
const rowsPerStatement = 500;

/** UTC hours since 1970-01-01: the unit of the usage counters. */
export function hourOf(ms: number): number {

    return Math.floor(ms / hourMs);
}

const statusClasses: readonly StatusClass[] = ['2xx', '2xx', '2xx', '3xx', '4xx', '5xx'];

/** 1xx counts with 2xx; anything past 5xx with 5xx. */
export function statusClassOf(statusCode: number): StatusClass {

    return statusClasses[Math.min(5, Math.floor(statusCode / 100))];
}

/** What makes two counts one row of `usage_counters` (its unique key). */
function countId(hour: number, keyId: string, routeGroup: string, route: string, statusClass: StatusClass): string {

    return `${hour}\n${keyId}\n${routeGroup}\n${route}\n${statusClass}`;
}

export interface UsageMeterOptions {
    models: Models;
    sequelize: Sequelize;
    transaction: RunInTransaction;
    policyStore: PolicyStore;
    log: Log;
}

/**
 * Counts API requests without a database write per request: counts add up in memory
 * and every flush interval (policies/usage.yaml) one statement per few hundred counters
 * adds them to `usage_counters`. The statement adds to what is stored, so any number
 * of instances flush their own counts and the totals stay exact; a crash loses at most
 * one interval. Counts older than the retention are deleted on a cron schedule. Both
 * follow policy reloads.
 */
export class UsageMeter {
    private pending = new Map<string, Count>();
    private timer?: NodeJS.Timeout;
    private readonly cleanup: PolicyCronJobs;
    private flushing: Promise<void> = Promise.resolve();
    private readonly writeFailures: JobFailures;
    private readonly deleteFailures: JobFailures;

    constructor(private readonly options: UsageMeterOptions) {

        this.writeFailures = new JobFailures(options.log, ['usage'], 'Writing usage counts (kept for the next flush)');
        this.deleteFailures = new JobFailures(options.log, ['usage'], 'Deleting old usage counts');
        this.cleanup = new PolicyCronJobs(options.policyStore, [{
            schedule: (policies) => policies.usage.cleanup_schedule,
            run: () => void this.deleteFailures.run(() => this.deleteExpired())
        }]);
    }

    count(request: MeteredRequest): void {

        const hour = hourOf(request.at ?? Date.now());
        const statusClass = statusClassOf(request.statusCode);
        const pending = this.pending.get(countId(hour, request.keyId, request.routeGroup, request.route, statusClass));
        if (pending) {
            ++pending.requests;         // the common case: one more request like one already counted, no allocation
            return;
        }

        this.add({ hour, keyId: request.keyId, familyLongId: request.familyLongId, routeGroup: request.routeGroup, route: request.route, statusClass, requests: 1 });
    }

    start(): void {

        this.scheduleFlush();
        this.cleanup.start();
    }

    async stop(): Promise<void> {

        clearTimeout(this.timer);
        this.timer = undefined;
        this.cleanup.stop();
        await this.flush();
    }

    /** Writes the counts so far. Flushes run one at a time; a failed one keeps its counts for the next. */
    flush(): Promise<void> {

        this.flushing = this.flushing.then(() => this.writeFailures.run(() => this.writePending()));
        return this.flushing;
    }

    /** Deletes counts older than the policy's retention. */
    async deleteExpired(now = Date.now()): Promise<number> {

        const oldestKept = hourOf(now) - this.options.policyStore.current().usage.retention_days * 24;
        return this.options.models.UsageCounter.destroy({ where: { hour: { [Op.lt]: oldestKept } } });
    }

    // The interval is read from the policies at every flush, so a reload changes it.
    private scheduleFlush(): void {

        this.timer = setTimeout(() => {

            void this.flush().finally(() => {

                if (this.timer) {
                    this.scheduleFlush();
                }
            });
        }, this.options.policyStore.current().usage.flush_interval_seconds * 1000);
        this.timer.unref();
    }

    private async writePending(): Promise<void> {

        if (this.pending.size === 0) {
            return;
        }

        const batch = [...this.pending.values()];
        this.pending = new Map();
        try {
            await this.options.transaction(async (transaction) => {

                for (let start = 0; start < batch.length; start += rowsPerStatement) {
                    const rows = batch.slice(start, start + rowsPerStatement);
                    await this.options.sequelize.query(
                        'INSERT INTO usage_counters (hour, key_id, route_group, route, status_class, family_long_id, requests) VALUES ' +
                        rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ') +
                        ' ON CONFLICT (hour, key_id, route_group, route, status_class) DO UPDATE SET requests = usage_counters.requests + excluded.requests',
                        { replacements: rows.flatMap((row) => [row.hour, row.keyId, row.routeGroup, row.route, row.statusClass, row.familyLongId, row.requests]), transaction }
                    );
                }
            });
        }
        catch (error) {
            batch.forEach((count) => this.add(count));
            throw error;
        }
    }

    private add(count: Count): void {

        const id = countId(count.hour, count.keyId, count.routeGroup, count.route, count.statusClass);
        const pending = this.pending.get(id);
        if (pending) {
            pending.requests += count.requests;
        }
        else {
            this.pending.set(id, { ...count });
        }
    }
}
