import Fs from 'fs';
import Path from 'path';

import { DesktopClient, profileTokenStorage } from 'family-records-desktop';

/** The 8-byte signature every PNG starts with: what the service recognises a PNG by. */
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A file the service takes for a PNG image, of exactly `size` bytes. */
export function pngBytes(size: number): Buffer {

    return Buffer.concat([pngSignature, Buffer.alloc(size - pngSignature.length, 7)]);
}

/** Every file under `directory`, at any depth. */
export function filesUnder(directory: string): string[] {

    if (!Fs.existsSync(directory)) {
        return [];
    }

    return Fs.readdirSync(directory, { withFileTypes: true, recursive: true })
        .filter((entry) => entry.isFile())
        .map((entry) => Path.join(entry.parentPath, entry.name));
}

/** Runs `work` with the client's environment pointing at `home`, as the command line runs there. */
export async function inHome<T>(home: string, work: () => Promise<T>): Promise<T> {

    const saved = { home: process.env.FAMILY_RECORDS_DESKTOP_HOME, keyStore: process.env.FAMILY_RECORDS_DESKTOP_KEY_STORE };
    process.env.FAMILY_RECORDS_DESKTOP_HOME = home;
    process.env.FAMILY_RECORDS_DESKTOP_KEY_STORE = 'file';
    try {
        return await work();
    }
    finally {
        restore('FAMILY_RECORDS_DESKTOP_HOME', saved.home);
        restore('FAMILY_RECORDS_DESKTOP_KEY_STORE', saved.keyStore);
    }
}

function restore(name: string, value: string | undefined): void {

    if (value === undefined) {
        delete process.env[name];
    }
    else {
        process.env[name] = value;
    }
}

/** The tokens and cache key the current profile under `home` keeps, read through the client's own storage. */
export function profileTokens(home: string): Promise<{ access_token: string; refresh_token: string; cacheKey: string }> {

    return inHome(home, async () => {

        const client = await DesktopClient.open();
        try {
            const tokens = await profileTokenStorage(client.profile, client.secrets, client.store).read();
            const cacheKey = await client.secrets.get('cache-key');
            if (!tokens || !cacheKey) {
                throw new Error(`the profile under ${home} keeps no tokens`);
            }

            return { access_token: tokens.access_token, refresh_token: tokens.refresh_token, cacheKey };
        }
        finally {
            await client.close();
        }
    });
}
