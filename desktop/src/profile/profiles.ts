import Fs from 'fs';
import Path from 'path';

import { desktopHome } from './paths';
import { ensurePrivateDir, readFileIfExists, writePrivateFile } from './private-files';

/* One profile per server and account, under <home>/profiles/<name>/: its description, secrets (file store), cache and outbox. */

export interface ProfileInfo {
    name: string;
    dir: string;
    serverUrl: string;
    userId: string;
    email: string;
    familyName: string;
    deviceName: string;
    createdAt: string;
}

const descriptionFile = 'profile.json';
const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;


/** A readable, file-safe name: the server's host, port and path, then the account, e.g. "127.0.0.1-3000--usr_abc". */
export function profileName(serverUrl: string, userId: string): string {

    const url = new URL(serverUrl);
    const server = [url.hostname, url.port, ...url.pathname.split('/')].filter(Boolean).join('-');
    return `${fileSafe(server.toLowerCase())}--${fileSafe(userId)}`;
}


export async function saveProfile(info: Omit<ProfileInfo, 'dir' | 'name'>): Promise<ProfileInfo> {

    const name = profileName(info.serverUrl, info.userId);
    const dir = profileDir(name);
    await ensurePrivateDir(profilesRoot());
    await ensurePrivateDir(dir);
    const description = {
        name,
        serverUrl: info.serverUrl,
        userId: info.userId,
        email: info.email,
        familyName: info.familyName,
        deviceName: info.deviceName,
        createdAt: info.createdAt
    };

    await writePrivateFile(Path.join(dir, descriptionFile), JSON.stringify(description, null, 4) + '\n');
    return { ...description, dir };
}


export async function listProfiles(): Promise<ProfileInfo[]> {

    const root = profilesRoot();
    const entries = await Fs.promises.readdir(root, { withFileTypes: true }).catch(ignoreMissing);
    const profiles: ProfileInfo[] = [];
    for (const entry of entries ?? []) {
        const profile = entry.isDirectory() && namePattern.test(entry.name) ? await readProfile(entry.name) : undefined;
        if (profile) {
            profiles.push(profile);
        }
    }

    return profiles.sort((a, b) => a.name.localeCompare(b.name));
}


/** The profile named, else $FAMILY_RECORDS_DESKTOP_PROFILE, else the one <home>/current names, else the only one there is. */
export async function currentProfile(name?: string): Promise<ProfileInfo | undefined> {

    const chosen = name ?? process.env.FAMILY_RECORDS_DESKTOP_PROFILE;
    if (chosen) {
        return await readProfile(checkName(chosen));
    }

    const current = (await readFileIfExists(currentFile()))?.toString().trim();
    if (current && namePattern.test(current)) {
        const profile = await readProfile(current);
        if (profile) {
            return profile;
        }
    }

    const profiles = await listProfiles();
    return profiles.length === 1 ? profiles[0] : undefined;
}


export async function setCurrentProfile(name: string): Promise<void> {

    if (!await readProfile(checkName(name))) {
        throw new Error(`No profile named ${name} in ${profilesRoot()}`);
    }

    await writePrivateFile(currentFile(), name + '\n');
}


/** Deletes the profile's whole directory (cache, outbox, key file), and the current-profile mark when it named it. */
export async function removeProfile(name: string): Promise<void> {

    await Fs.promises.rm(profileDir(checkName(name)), { recursive: true, force: true });
    const current = (await readFileIfExists(currentFile()))?.toString().trim();
    if (current === name) {
        await Fs.promises.rm(currentFile(), { force: true });
    }
}


async function readProfile(name: string): Promise<ProfileInfo | undefined> {

    const dir = profileDir(name);
    const content = await readFileIfExists(Path.join(dir, descriptionFile));
    if (!content) {
        return undefined;
    }

    const description = JSON.parse(content.toString());
    return { ...description, name, dir };
}


function checkName(name: string): string {

    if (!namePattern.test(name)) {
        throw new Error(`Invalid profile name ${JSON.stringify(name)}: letters, digits, '.', '_' and '-' only, not starting with '.', '_' or '-'`);
    }

    return name;
}


function fileSafe(text: string): string {

    return text.replace(/[^A-Za-z0-9._]+/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'x';
}


function profilesRoot(): string {

    return Path.join(desktopHome(), 'profiles');
}


function profileDir(name: string): string {

    return Path.join(profilesRoot(), name);
}


function currentFile(): string {

    return Path.join(desktopHome(), 'current');
}


function ignoreMissing(error: NodeJS.ErrnoException): undefined {

    if (error.code === 'ENOENT') {
        return undefined;
    }

    throw error;
}
