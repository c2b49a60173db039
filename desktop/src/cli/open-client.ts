import { DesktopClient } from '../engine/desktop-client';
import { OfflineError } from '../sdk/errors';
import type { Output } from './output';

/** Runs `job` with the profile's client (the current one unless `--profile` names another), and closes it after. */
export async function withClient<T>(profile: string | undefined, job: (client: DesktopClient) => Promise<T>): Promise<T> {

    const client = await DesktopClient.open({ profile });
    try {
        return await job(client);
    }
    finally {
        await client.close();
    }
}

/**
 * Brings the local copy up to date before a command shows it. Offline, says so on stderr and leaves the copy as it
 * was: what was kept is still worth showing. Resolves whether the service answered.
 */
export async function refreshed(client: DesktopClient, output: Output): Promise<boolean> {

    try {
        await client.sync();
        return true;
    }
    catch (error) {
        if (!(error instanceof OfflineError)) {
            throw error;
        }

        const { lastSyncAt } = await client.status();
        output.note(`offline: ${error.message} Showing what this computer kept${lastSyncAt ? ` (last synced ${lastSyncAt})` : ''}.`);
        return false;
    }
}
