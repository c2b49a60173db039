import Path from 'path';

import type { TokenSet } from '../sdk/device-sign-in';
import type { TokenStorage } from '../sdk/session';

import { ensurePrivateFileSync } from './private-files';
import type { LocalStore } from './local-store';
import type { ProfileInfo } from './profiles';
import type { SecretStore } from './secret-store';

/*
 * A profile's tokens: the refresh token (long-lived, it signs the device in) in the secret store; the access token,
 * its expiry and scope sealed in the local store's state. The lock file serialises refreshes across the profile's processes.
 */

const stateName = 'access-token';

interface AccessState {
    access_token: string;
    expires_at: number;
    scope: string;
}


export function profileTokenStorage(profile: ProfileInfo, secrets: SecretStore, store: LocalStore): TokenStorage {

    const lockFile = Path.join(profile.dir, 'tokens.lock');
    ensurePrivateFileSync(lockFile);
    return {
        lockFile,
        read: async () => {

            const refreshToken = await secrets.get('refresh-token');
            const access = await store.getState<AccessState>(stateName);
            return refreshToken && access ? { ...access, refresh_token: refreshToken } : undefined;
        },
        write: async (tokens: TokenSet) => {

            // The refresh token first: after a crash in between, the old access token with the new refresh token still works.
            await secrets.set('refresh-token', tokens.refresh_token);
            await store.setState(stateName, { access_token: tokens.access_token, expires_at: tokens.expires_at, scope: tokens.scope });
        }
    };
}
