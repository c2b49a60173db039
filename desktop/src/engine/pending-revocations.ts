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

/**
 * Revokes the tokens left by a disconnect made offline, of any profile; those still unreachable stay for the next
 * start. A token the service refuses to revoke (it is revoked already, or expired) is done with too.
 */
export async function retryPendingRevocations(): Promise<void> {

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
