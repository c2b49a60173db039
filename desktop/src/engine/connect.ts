import Os from 'os';
import Path from 'path';

import { newCacheKey } from '../profile/cipher';
import { LocalStore } from '../profile/local-store';
import { desktopHome } from '../profile/paths';
import { saveProfile, setCurrentProfile } from '../profile/profiles';
import { openSecretStore } from '../profile/secret-store';
import { removeDatabaseFiles } from '../profile/store-database';
import { profileTokenStorage } from '../profile/token-storage';
import { pollForTokens, requestDeviceCode, type DeviceCode, type TokenSet } from '../sdk/device-sign-in';
import { discover, normalizeServerUrl } from '../sdk/discovery';
import { MessagingClient } from '../sdk/messaging-client';
import { Session, type TokenStorage } from '../sdk/session';
import type { Me } from '../sdk/types';
import { stateNames, type ClientParts } from './context';
import { partsOf } from './open';

export interface ConnectOptions {
    deviceName?: string;
    scope?: string;
    allowInsecure?: boolean;
    /** Shows the user the code to approve, and where. */
    onCode(code: DeviceCode): void;
    signal?: AbortSignal;
}

/**
 * Connects this computer to an account of the service at `serverUrl`: discovery, the device flow (the user approves
 * the code in a browser), GET /me for whose account it is, then the profile of that server and account with a cache
 * key and the refresh token in its secret store, its encrypted store, and it becomes the current profile.
 */
export async function connectParts(serverUrl: string, options: ConnectOptions): Promise<ClientParts> {

    const normalized = normalizeServerUrl(serverUrl, { allowInsecure: options.allowInsecure });
    const metadata = await discover(normalized);
    const deviceName = options.deviceName ?? Os.hostname();
    const code = await requestDeviceCode(metadata, { deviceName, scope: options.scope });
    options.onCode(code);
    const tokens = await pollForTokens(metadata, code, { signal: options.signal });
    const me = await whoAmI(normalized, new Session(metadata, memoryTokenStorage(tokens)));

    const profile = await saveProfile({ serverUrl: normalized, userId: me.user.id, email: me.user.email, familyName: me.family.name,
        deviceName: me.device.name, createdAt: new Date().toISOString() });
    const secrets = await openSecretStore(profile);
    // A profile connected again keeps its key, so that what it cached and an outbox not sent yet stay readable. Without
    // one (disconnected, or the key store lost it), a store left behind cannot be read any more: it starts anew.
    let cacheKey = await secrets.get('cache-key');
    if (!cacheKey) {
        await removeDatabaseFiles(profile.dir);
        cacheKey = newCacheKey().toString('base64');
        await secrets.set('cache-key', cacheKey);
    }

    const store = await LocalStore.open(profile.dir, Buffer.from(cacheKey, 'base64'));
    await profileTokenStorage(profile, secrets, store).write(tokens);
    await store.setState(stateNames.server, metadata);
    await setCurrentProfile(profile.name);
    return partsOf(profile, secrets, store, metadata);
}

function whoAmI(serverUrl: string, session: Session): Promise<Me> {

    return new MessagingClient(serverUrl, session).me();
}

/** The new tokens before the profile they go to exists (its name needs the user's id): kept in memory. */
function memoryTokenStorage(tokens: TokenSet): TokenStorage {

    let current = tokens;
    return {
        lockFile: Path.join(desktopHome(), 'connecting.lock'),
        read: () => Promise.resolve(current),
        write(next) {

            current = next;
            return Promise.resolve();
        }
    };
}
