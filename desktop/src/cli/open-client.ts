import { DesktopClient } from '../engine/desktop-client';
import { isAccountRefusal } from '../engine/errors';
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
 * Brings the local copy up to date before a command shows it. Offline, or refused as an account that cannot use
 * messaging now, says so on stderr and leaves the copy as it was: what was kept is still worth showing. Resolves
 * whether the service answered.
 */
export async function refreshed(client: DesktopClient, output: Output): Promise<boolean> {

    try {
        await client.sync();
        return true;
    }
    catch (error) {
        if (!(error instanceof OfflineError) && !isAccountRefusal(error)) {
            throw error;
        }

        const { lastSyncAt } = await client.status();
        const why = error instanceof OfflineError ? `offline: ${error.message}` : (error as Error).message;
        output.note(`${why} Showing what this computer kept${lastSyncAt ? ` (last synced ${lastSyncAt})` : ''}.`);
        return false;
    }
}
