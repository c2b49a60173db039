import Path from 'path';

import { desktopHome } from '../profile/paths';
import { readFileIfExists, writePrivateFile } from '../profile/private-files';
import { revokeToken } from '../sdk/device-sign-in';
import type { ServerMetadata } from '../sdk/discovery';
import { OfflineError } from '../sdk/errors';

/** A refresh token of a disconnected profile that the service could not be told about yet. */
export interface PendingRevocation {
    serverUrl: string;
    metadata: ServerMetadata;
    token: string;
}

function revocationsFile(): string {

    return Path.join(desktopHome(), 'pending-revocations.json');
}

async function readPending(): Promise<PendingRevocation[]> {

    const content = await readFileIfExists(revocationsFile());
    return content ? JSON.parse(content.toString('utf8')) : [];
}

/** Keeps the token (in a file only its user reads) for the next start of the client to revoke. */
export async function addPendingRevocation(revocation: PendingRevocation): Promise<void> {

    await writePrivateFile(revocationsFile(), JSON.stringify([...await readPending(), revocation]));
}

// A service that takes connections but does not answer must not hold the client's start for a request's whole timeout.
const startWaitMs = 5_000;

/** Retries the pending revocations, waiting for them a few seconds at most: the rest goes on in the background. */
export async function retryPendingRevocationsAtStart(): Promise<void> {

    const retry = retryPendingRevocations().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {

        timer = setTimeout(resolve, startWaitMs).unref();
    });
    await Promise.race([retry, waited]);
    clearTimeout(timer);
}

/**
 * Revokes the tokens left by a disconnect made offline, of any profile; those still unreachable stay for the next
 * start. A token the service refuses to revoke (it is revoked already, or expired) is done with too.
 */
async function retryPendingRevocations(): Promise<void> {

    const pending = await readPending();
    if (pending.length === 0) {
        return;
    }

    const left: PendingRevocation[] = [];
    for (const revocation of pending) {
        try {
            await revokeToken(revocation.metadata, revocation.token);
        }
        catch (error) {
            if (error instanceof OfflineError) {
                left.push(revocation);
            }
        }
    }

    await writePrivateFile(revocationsFile(), JSON.stringify(left));
}
