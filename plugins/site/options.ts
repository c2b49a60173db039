import Joi from 'joi';

import type { SiteContext } from './context';

export interface SiteOptions extends SiteContext {
    /** Seals the session cookies (iron); at least 32 characters, derived from the master secret. */
    cookiePassword: string;
    /** https: cookies are Secure (and the session cookie `__Host-`), and pages send HSTS. */
    publicBaseUrl: string;
}

export const siteOptionsSchema = Joi.object({
    models: Joi.object().required(),
    accounts: Joi.object().required(),
    messaging: Joi.object().required(),
    uploadFiles: Joi.object().required(),
    policies: Joi.function().required(),
    rateLimits: Joi.object().required(),
    twoFactorKeys: Joi.object({
        totpSecrets: Joi.binary().length(32).required(),
        recoveryCodes: Joi.binary().min(32).required()
    }).required(),
    log: Joi.function().required(),
    cookiePassword: Joi.string().min(32).required(),
    publicBaseUrl: Joi.string().uri({ scheme: ['http', 'https'] }).required()
});
