import type { Sequelize } from 'sequelize';

import type { AuthEpoch } from '../gateway/auth-epoch';
import type { PolicyStore } from '../gateway/policies/policy-store';
import type { RateLimitStore } from '../gateway/rate-limit/types';
import type { Models } from '../models';
import type { RunInTransaction } from '../plugins/records/writes';
import type { AccountsContext } from './accounts/context';
import type { Config } from './config';
import type { Log } from './logger';
import type { RedisClient } from './redis';

/** The shared pieces a deployment builds once: what plugins, the CLI and tests work with. */
export interface Services {
    config: Config;
    log: Log;
    sequelize: Sequelize;
    models: Models;
    transaction: RunInTransaction;
    redis?: RedisClient;
    policyStore: PolicyStore;
    authEpoch: AuthEpoch;
    rateLimits: RateLimitStore;
    /** The context of the account services (families, users, API keys). */
    accounts: AccountsContext;
}

declare module '@hapi/hapi' {
    interface ServerApplicationState {
        services: Services;
    }
}
