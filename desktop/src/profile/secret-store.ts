import Crypto from 'crypto';
import Fs from 'fs';
import Path from 'path';

import { AsyncEntry, type EntryOptions } from '@napi-rs/keyring';

import type { ProfileInfo } from './profiles';
import { readFileIfExists, writePrivateFile } from './private-files';

/*
 * Where the cache key and the refresh token live: the system keyring when one answers, else a key file readable only
 * by the user (as gh does). On Linux without a Secret Service the keyring library falls back to the kernel keyring,
 * which a reboot empties and which here writes the key before refusing to read it back: so on Linux only the Secret
 * Service counts, and only when a D-Bus session bus is there and a throw-away entry round-trips.
 */

export type SecretName = 'cache-key' | 'refresh-token';

export interface SecretStore {
    kind: 'keyring' | 'file';
    /** For `status`: where the secrets are. */
    description: string;
    /** Set for 'file': the secrets are in a plain text file. */
    warning?: string;
    get(name: SecretName): Promise<string | undefined>;
    set(name: SecretName, value: string): Promise<void>;
    deleteAll(): Promise<void>;
}

const service = 'family-records-desktop';
const secretNames: SecretName[] = ['cache-key', 'refresh-token'];
const choiceFile = 'store.json';
const secretsFile = 'secrets.json';
const entryOptions: EntryOptions = { linux: { store: 'secret-service' } };


/** The profile's secret store: the one remembered for it, else the one $FAMILY_RECORDS_DESKTOP_KEY_STORE forces, else the keyring when it answers. */
export async function openSecretStore(profile: ProfileInfo): Promise<SecretStore> {

    const forced = forcedKind();
    const remembered = await rememberedKind(profile);
    if (remembered && forced && remembered !== forced) {
        throw new Error(`FAMILY_RECORDS_DESKTOP_KEY_STORE=${forced}, but the secrets of profile ${profile.name} are in the ${remembered === 'file' ? 'key file' : 'system keyring'}: unset it, or disconnect and connect again`);
    }

    let kind = remembered ?? forced;
    if (kind !== 'file') {
        const failure = await probeKeyring();
        if (failure && kind === 'keyring') {
            const why = remembered ? `The secrets of profile ${profile.name} are in the system keyring` : 'FAMILY_RECORDS_DESKTOP_KEY_STORE=keyring';
            throw new Error(`${why}, but no system keyring answers: ${failure}`);
        }

        kind = failure ? 'file' : 'keyring';
    }

    if (!remembered) {
        await writePrivateFile(Path.join(profile.dir, choiceFile), JSON.stringify({ keyStore: kind }) + '\n');
    }

    return kind === 'keyring' ? keyringStore(profile) : fileStore(profile);
}


/** Why the system keyring cannot hold secrets, or undefined when a throw-away entry round-trips. */
export async function probeKeyring(): Promise<string | undefined> {

    if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS) {
        return 'no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service (GNOME Keyring, KWallet)';
    }

    try {
        const entry = new AsyncEntry(service, `probe-${Crypto.randomBytes(8).toString('hex')}`, entryOptions);
        const value = Crypto.randomBytes(16).toString('hex');
        await entry.setPassword(value);
        const back = await entry.getPassword();
        await entry.deleteCredential();
        return back === value ? undefined : 'a value written to it did not read back';
    }
    catch (error) {
        return (error as Error).message;
    }
}


function forcedKind(): SecretStore['kind'] | undefined {

    const value = process.env.FAMILY_RECORDS_DESKTOP_KEY_STORE;
    if (!value) {
        return undefined;
    }

    if (value !== 'file' && value !== 'keyring') {
        throw new Error(`Invalid FAMILY_RECORDS_DESKTOP_KEY_STORE=${value}: "keyring" or "file"`);
    }

    return value;
}


async function rememberedKind(profile: ProfileInfo): Promise<SecretStore['kind'] | undefined> {

    const content = await readFileIfExists(Path.join(profile.dir, choiceFile));
    const kind = content ? JSON.parse(content.toString()).keyStore : undefined;
    return kind === 'file' || kind === 'keyring' ? kind : undefined;
}


function keyringStore(profile: ProfileInfo): SecretStore {

    const entry = (name: SecretName) => new AsyncEntry(service, `${profile.name}/${name}`, entryOptions);
    return {
        kind: 'keyring',
        description: 'the system keyring' + (process.platform === 'linux' ? ' (Secret Service)' : ''),
        get: async (name) => (await entry(name).getPassword()) ?? undefined,
        set: (name, value) => entry(name).setPassword(value),
        deleteAll: async () => {

            for (const name of secretNames) {
                await entry(name).deleteCredential();
            }
        }
    };
}


function fileStore(profile: ProfileInfo): SecretStore {

    const path = Path.join(profile.dir, secretsFile);
    const read = async (): Promise<Partial<Record<SecretName, string>>> => JSON.parse((await readFileIfExists(path))?.toString() ?? '{}');
    return {
        kind: 'file',
        description: `the key file ${path}, readable only by you`,
        warning: `The cache key and the refresh token are stored in plain text in ${path}, readable only by you; install a Secret Service keyring (GNOME Keyring, KWallet) to keep them there instead`,
        get: async (name) => (await read())[name],
        set: async (name, value) => await writePrivateFile(path, JSON.stringify({ ...await read(), [name]: value }, null, 4) + '\n'),
        deleteAll: () => Fs.promises.rm(path, { force: true })
    };
}
