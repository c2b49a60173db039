import type { Sequelize } from 'sequelize';

import type { AuthEpoch } from '../gateway/auth-epoch';
import type { PolicyStore } from '../gateway/policies/policy-store';
import type { RateLimitStore } from '../gateway/rate-limit/types';
import type { UsageMeter } from '../gateway/usage-meter';
import type { Models } from '../models';
import type { AccountsContext } from './accounts/context';
import type { ChangeBus } from './change-bus';
import type { Config } from './config';
import type { RunInTransaction } from './database';
import type { Log } from './logger';
import type { MessagingContext } from './messaging/context';
import type { RedisClient } from './redis';
import type { RedisOutage } from './redis-outage';
import type { UploadFiles } from './storage/upload-files';

/** The shared pieces a deployment builds once: what plugins, the CLI and tests work with. */
export interface Services {
    config: Config;
    log: Log;
    sequelize: Sequelize;
    models: Models;
    transaction: RunInTransaction;
    redis?: RedisClient;
    /** With Redis: whether it is failing the service now (the gateway then goes on without it). */
    redisOutage?: RedisOutage;
    policyStore: PolicyStore;
    authEpoch: AuthEpoch;
    rateLimits: RateLimitStore;
    /** The gateway's usage counts; `flush()` writes what it holds. */
    usageMeter: UsageMeter;
    /** Committed change events, announced to the change stream and webhooks (with Redis, across instances). */
    changeBus: ChangeBus;
    /** The bytes of resumable uploads (message attachments), in FILES_DIR: lib/messaging/uploads.ts releases them. */
    uploadFiles: UploadFiles;
    /** The context of the account services (families, users, API keys). */
    accounts: AccountsContext;
    /** The context of the messaging services: the site's /messages pages and the messaging API share it (and its bus of messaging changes). */
    messaging: MessagingContext;
}

declare module '@hapi/hapi' {
    interface ServerApplicationState {
        services: Services;
    }
}
