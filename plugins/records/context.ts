import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { ChangeBus } from '../../lib/change-bus';
import type { RunInTransaction } from '../../lib/database';
import type { Log } from '../../lib/logger';
import type { Models } from '../../models';
import type { RecordExtensions } from './extensions';
import type { ListReader } from './list-readers';

export interface RecordsOptions {
    /** The gateway route group whose auth its routes use; the prefix they are under is the registration's (`routes.prefix`). */
    routeGroup: string;
    models: Models;
    transaction: RunInTransaction;
    changeBus: ChangeBus;
    publicBaseUrl: string;
    /** The schedule of the idempotency keys' cleanup (policies/records.yaml). */
    policyStore: PolicyStore;
    log: Log;
}

/**
 * The options, plus the prefix of the registration's routes (`/api/v1`), what other plugins added through
 * `extensions` and the list reader: what the handlers work with.
 */
export type RecordsContext = RecordsOptions & { prefix: string; extensions: RecordExtensions; lists: ListReader };
