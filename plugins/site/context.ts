import type { Policies } from '../../gateway/policies/policy-file';
import type { RateLimitStore } from '../../gateway/rate-limit/types';
import type { AccountsContext } from '../../lib/accounts/context';
import type { Log } from '../../lib/logger';
import type { MessagingContext } from '../../lib/messaging/context';
import type { UploadFiles } from '../../lib/storage/upload-files';
import type { Models } from '../../models';

/** The keys two-factor sign-in works with, derived from the master secret by the deployment. */
export interface TwoFactorKeys {
    /** Encrypts TOTP secrets at rest (AES-256-GCM): the server must read them back, so they cannot be hashed. */
    totpSecrets: Buffer;
    /** Keys the recovery-code hashes. */
    recoveryCodes: Buffer;
}

/** What the site's routes work with: the plugin's options, checked at registration. */
export interface SiteContext {
    models: Models;
    /** The account services (families, users, API keys) the pages call. */
    accounts: AccountsContext;
    /** The messaging services the /messages pages call. */
    messaging: MessagingContext;
    /** The messaging uploads' bytes: the compose form's files and the attachments it serves. */
    uploadFiles: UploadFiles;
    policies: () => Policies;
    /** The gateway's rate-limit store, reused for sign-in throttling. */
    rateLimits: RateLimitStore;
    twoFactorKeys: TwoFactorKeys;
    log: Log;
}

/** The cookie that carries a sign-in waiting for its two-factor code. */
export const twoFactorCookie = 'fr_two_factor';
