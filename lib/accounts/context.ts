import type { AuthEpoch } from '../../gateway/auth-epoch';
import type { DeviceTokenKeys } from '../../gateway/device-token';
import type { Policies } from '../../gateway/policies/policy-file';
import type { Models } from '../../models';
import type { RunInTransaction } from '../database';

/** What the account services (families, users, keys, devices) work with; built once by the deployment. */
export interface AccountsContext {
    models: Models;
    transaction: RunInTransaction;
    policies: () => Policies;
    authEpoch: AuthEpoch;
    /** Keys the API-key hashes. */
    pepper: Buffer;
    /** Key the device tokens' hashes and derive their successors. */
    deviceTokenKeys: DeviceTokenKeys;
}
