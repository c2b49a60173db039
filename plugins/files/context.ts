import type { PluginProperties } from '@hapi/hapi';

import type { PolicyStore } from '../../gateway/policies/policy-store';
import type { Policies } from '../../gateway/policies/policy-file';
import type { Log } from '../../lib/logger';
import type { Services } from '../../lib/services';
import type { FileStorage } from '../../lib/storage';
import type { Models } from '../../models';

/** The records plugin's API (`server.plugins.records`), known through hapi's types rather than the plugin's files. */
export type RecordsApi = PluginProperties['records'];
/** What a create takes besides the record's values: the records plugin's create options. */
export type CreateOptions = NonNullable<Parameters<RecordsApi['createRecord']>[3]>;

export interface FilesOptions {
    /** The gateway route group whose auth the upload and download routes use, and the path they are under (`/api/v1`). */
    routeGroup: string;
    prefix: string;
    models: Models;
    transaction: Services['transaction'];
    storage: FileStorage;
    /** Key of the signed file URLs, derived from the master secret for this purpose only. */
    signingKey: Buffer;
    publicBaseUrl: string;
    /** The policies: plans (upload limits, quotas) and files (media types, URL lifetimes, the sweep's schedule). */
    policyStore: PolicyStore;
    log: Log;
}

/** What the files plugin's handlers work with: its options and the records plugin's API. */
export interface FilesContext extends FilesOptions {
    records: RecordsApi;
    /** The policies in force. */
    policies: () => Policies;
}
