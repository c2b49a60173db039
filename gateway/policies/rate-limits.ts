import Joi from 'joi';

import { byName, policyFile } from './policy-file';
import { namedList, windowSchema, type RateLimitWindow } from './schema-parts';

export interface RateLimitPreset {
    name: string;
    per_key: RateLimitWindow;
    /** Shared by all of a family's credentials together. */
    per_family: RateLimitWindow;
    /** Shared by all of a user's devices together; counts only credentials that speak for a user (device tokens). */
    per_user?: RateLimitWindow;
}

declare module './policy-file' {
    interface Policies {
        /** rate-limits.yaml, by preset name. */
        rateLimits: Map<string, RateLimitPreset>;
    }
}

/** policies/rate-limits.yaml: the presets plans and route groups name. */
export const rateLimitsFile = policyFile({
    fileName: 'rate-limits.yaml',
    key: 'rateLimits',
    schema: Joi.object<{ presets: RateLimitPreset[] }, true>({
        presets: namedList(Joi.object<RateLimitPreset, true>({
            name: Joi.string().required(),
            per_key: windowSchema.required(),
            per_family: windowSchema.required(),
            per_user: windowSchema
        })).min(1).required()
    }),
    toPolicy: (document) => byName(document.presets)
});
