import { LocalStore } from '../profile/local-store';
import { currentProfile, type ProfileInfo } from '../profile/profiles';
import { openSecretStore, type SecretStore } from '../profile/secret-store';
import { profileTokenStorage } from '../profile/token-storage';
import type { ServerMetadata } from '../sdk/discovery';
import { MessagingClient } from '../sdk/messaging-client';
import { Session } from '../sdk/session';
import { stateNames, type ClientParts } from './context';
import { NotConnectedError } from './errors';

/** The API client of a profile whose store is open: its session refreshes through the profile's token storage. */
export function partsOf(profile: ProfileInfo, secrets: SecretStore, store: LocalStore, metadata: ServerMetadata): ClientParts {

    const session = new Session(metadata, profileTokenStorage(profile, secrets, store));
    return { profile, secrets, store, metadata, api: new MessagingClient(profile.serverUrl, session) };
}

/** Opens a connected profile (by name, else the current one) without a request to the service: it works offline. */
export async function openParts(name?: string): Promise<ClientParts> {

    const profile = await currentProfile(name);
    if (!profile) {
        throw new NotConnectedError(name ? `No profile named ${name}: run \`family-records-desktop connect <server-url>\` first.` : undefined);
    }

    const secrets = await openSecretStore(profile);
    const cacheKey = await secrets.get('cache-key');
    if (!cacheKey || !await secrets.get('refresh-token')) {
        throw new NotConnectedError(`${profile.email} on ${profile.serverUrl} is disconnected: run \`family-records-desktop connect ${profile.serverUrl}\` again.`);
    }

    const store = await LocalStore.open(profile.dir, Buffer.from(cacheKey, 'base64'));
    const metadata = await store.getState<ServerMetadata>(stateNames.server);
    if (!metadata) {
        await store.close();
        throw new NotConnectedError(`${profile.email} on ${profile.serverUrl} never finished connecting: run \`family-records-desktop connect ${profile.serverUrl}\` again.`);
    }

    return partsOf(profile, secrets, store, metadata);
}
