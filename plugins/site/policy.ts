import Joi from 'joi';

import { policyFile } from '../../gateway/policies/policy-file';
import { windowSchema, type RateLimitWindow } from '../../gateway/policies/schema-parts';

/** policies/site.yaml: sign-in and device-code throttling and session lifetimes of the hosted site. */
export interface SitePolicy {
    sign_in_throttle: {
        per_account_and_address: { free_failures: number; first_delay_seconds: number; max_delay_seconds: number; window_seconds: number };
        per_account: RateLimitWindow;
        per_ip: RateLimitWindow;
    };
    sessions: {
        lifetime_hours: number;
        two_factor_minutes: number;
    };
    device_code_entry: {
        per_account: RateLimitWindow;
        per_ip: RateLimitWindow;
    };
}

declare module '../../gateway/policies/policy-file' {
    interface Policies {
        site: SitePolicy;
    }
}

export const sitePolicyFile = policyFile({
    fileName: 'site.yaml',
    key: 'site',
    schema: Joi.object<SitePolicy, true>({
        sign_in_throttle: Joi.object<SitePolicy['sign_in_throttle'], true>({
            per_account_and_address: Joi.object<SitePolicy['sign_in_throttle']['per_account_and_address'], true>({
                free_failures: Joi.number().integer().min(1).max(1000).required(),
                first_delay_seconds: Joi.number().integer().min(1).max(86_400).required(),
                max_delay_seconds: Joi.number().integer().min(Joi.ref('first_delay_seconds')).max(86_400).required(),
                window_seconds: Joi.number().integer().min(1).max(86_400).required()
            }).required(),
            per_account: windowSchema.required(),
            per_ip: windowSchema.required()
        }).required(),
        sessions: Joi.object<SitePolicy['sessions'], true>({
            lifetime_hours: Joi.number().integer().min(1).max(24 * 30).required(),
            two_factor_minutes: Joi.number().integer().min(1).max(60).required()
        }).required(),
        device_code_entry: Joi.object<SitePolicy['device_code_entry'], true>({
            per_account: windowSchema.required(),
            per_ip: windowSchema.required()
        }).required()
    })
});
