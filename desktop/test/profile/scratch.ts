import Fs from 'fs';
import Os from 'os';
import Path from 'path';

import { saveProfile, type ProfileInfo } from '../../src/profile/profiles';

/* A scratch desktop home per test file: FAMILY_RECORDS_DESKTOP_HOME points at it until restored. */

export interface ScratchHome {
    home: string;
    profile(userId?: string): Promise<ProfileInfo>;
    restore(): Promise<void>;
}


export async function scratchHome(env: Record<string, string | undefined> = {}): Promise<ScratchHome> {

    const home = await Fs.promises.mkdtemp(Path.join(Os.tmpdir(), 'frd-profile-'));
    const variables = { FAMILY_RECORDS_DESKTOP_HOME: home, FAMILY_RECORDS_DESKTOP_PROFILE: undefined, FAMILY_RECORDS_DESKTOP_KEY_STORE: undefined, ...env };
    const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
    setEnv(variables);

    return {
        home,
        profile: (userId = 'usr_scratch') => saveProfile({
            serverUrl: 'http://127.0.0.1:3000',
            userId,
            email: `${userId}@example.com`,
            familyName: 'The Scratches',
            deviceName: 'Test laptop',
            createdAt: new Date().toISOString()
        }),
        restore: async () => {

            setEnv(saved);
            await Fs.promises.rm(home, { recursive: true, force: true });
        }
    };
}


export function setEnv(variables: Record<string, string | undefined>): void {

    for (const [name, value] of Object.entries(variables)) {
        if (value === undefined) {
            delete process.env[name];
        }
        else {
            process.env[name] = value;
        }
    }
}


/** Every regular file and directory under the root, with its mode bits. */
export async function walk(root: string): Promise<Array<{ path: string; directory: boolean; mode: number }>> {

    const found = [];
    for (const entry of await Fs.promises.readdir(root, { withFileTypes: true, recursive: true })) {
        const path = Path.join(entry.parentPath ?? entry.path, entry.name);
        const stat = await Fs.promises.lstat(path);
        found.push({ path, directory: stat.isDirectory(), mode: stat.mode & 0o777 });
    }

    return found;
}
