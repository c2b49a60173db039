import type Https from 'https';

import type { Sequelize } from 'sequelize';

import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { ChangeBus } from '../../lib/change-bus';
import type { Log } from '../../lib/logger';
import type { Services } from '../../lib/services';
import type { Models } from '../../models';
import type { Resolver } from './resolver';

export interface WebhooksOptions {
    models: Models;
    sequelize: Sequelize;
    transaction: Services['transaction'];
    log: Log;
    /** The policies in force: webhooks.yaml, plans (endpoint limits), stream (event retention). */
    policyStore: PolicyStore;
    /** Key of the endpoint secrets at rest, derived from the master secret for this purpose only. */
    secretKey: Buffer;
    /** Wakes the delivery worker as soon as changes commit, on any instance; the sweep is the safety net. */
    changeBus: ChangeBus;
}

/** How deliveries reach the network: replaced only by tests (a test CA, a scripted resolver). */
export interface Transport {
    resolve: Resolver;
    agent: Https.Agent;
}

/** What the webhook services, the worker and the routes work with. */
export interface WebhooksContext extends WebhooksOptions {
    transport: Transport;
}
