import { removeProfile } from '../profile/profiles';
import { revokeToken } from '../sdk/device-sign-in';
import { OfflineError } from '../sdk/errors';
import type { ClientParts } from './context';
import { addPendingRevocation } from './pending-revocations';

/**
 * Disconnects the profile's device: the service revokes its refresh token (RFC 7009, which ends the device's grant),
 * then its keys leave the secret store and its cache, unreadable without them, is wiped. With `forget` the profile
 * goes too. Offline, the token waits in the pending revocations for the next start of the client: `revoked` false.
 */
export async function disconnectProfile(parts: ClientParts, options: { forget?: boolean } = {}): Promise<{ revoked: boolean }> {

    const { profile, secrets, store, metadata } = parts;
    const refreshToken = await secrets.get('refresh-token');
    let revoked = false;
    if (refreshToken) {
        try {
            await revokeToken(metadata, refreshToken);
            revoked = true;
        }
        catch (error) {
            if (!(error instanceof OfflineError)) {
                throw error;
            }

            await addPendingRevocation({ serverUrl: profile.serverUrl, metadata, token: refreshToken });
        }
    }

    await secrets.deleteAll();
    await store.wipe();
    if (options.forget) {
        await removeProfile(profile.name);
    }

    return { revoked };
}
