import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { ChangeBus } from '../../lib/change-bus';
import type { RunInTransaction } from '../../lib/database';
import type { Log } from '../../lib/logger';
import type { Models } from '../../models';
import type { RecordExtensions } from './extensions';
import type { ListReader } from './list-readers';

export interface RecordsOptions {
    models: Models;
    transaction: RunInTransaction;
    changeBus: ChangeBus;
    publicBaseUrl: string;
    /** The schedule of the idempotency keys' cleanup (policies/records.yaml). */
    policyStore: PolicyStore;
    log: Log;
}

/** The options, plus what other plugins added through `extend()` and the list reader: what the handlers work with. */
export type RecordsContext = RecordsOptions & { extensions: RecordExtensions; lists: ListReader };
