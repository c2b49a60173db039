import Joi from 'joi';

import { policyFile } from '../../gateway/policies/policy-file';
import { cronExpression } from '../../gateway/policies/schema-parts';

/** policies/records.yaml: the records API's periodic upkeep. */
export interface RecordsPolicy {
    idempotency_keys: {
        /** A cron expression: when the answers to creates past their 24 hours are deleted. */
        cleanup_schedule: string;
    };
}

declare module '../../gateway/policies/policy-file' {
    interface Policies {
        records: RecordsPolicy;
    }
}

export const recordsPolicyFile = policyFile({
    fileName: 'records.yaml',
    key: 'records',
    schema: Joi.object<RecordsPolicy, true>({
        idempotency_keys: Joi.object<RecordsPolicy['idempotency_keys'], true>({
            cleanup_schedule: cronExpression.required()
        }).required()
    })
});
