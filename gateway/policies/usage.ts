import Joi from 'joi';

import { policyFile } from './policy-file';
import { cronExpression } from './schema-parts';

/** policies/usage.yaml: how the gateway's usage counts are written and kept. */
export interface UsagePolicy {
    flush_interval_seconds: number;
    retention_days: number;
    /** A cron expression. */
    cleanup_schedule: string;
}

declare module './policy-file' {
    interface Policies {
        usage: UsagePolicy;
    }
}

export const usageFile = policyFile({
    fileName: 'usage.yaml',
    key: 'usage',
    schema: Joi.object<UsagePolicy, true>({
        flush_interval_seconds: Joi.number().integer().min(1).max(300).required(),
        // The usage pages show 30 days.
        retention_days: Joi.number().integer().min(30).required(),
        cleanup_schedule: cronExpression.required()
    })
});
