import { EpochNotMoved, type AuthEpoch } from '../../gateway/auth-epoch';
import { keyCacheMaxAgeMinutes } from '../../gateway/key-cache';
import type { Services } from '../services';
import { CliError } from './errors';
import { withServices } from './services';

/** Exit code of a change of access saved in the database but not announced to the running servers (Redis did not answer). */
export const notAnnouncedExitCode = 3;

/** Printed on stderr after the command's own output, with `notAnnouncedExitCode`: the change is made, not failed. */
export class ChangeNotAnnounced extends CliError {
    constructor(reason: string) {

        super([
            `the change is saved in the database, but Redis did not answer (${reason}), so the running servers were not told.`,
            '  Servers that lost Redis too check every key against the database until it answers: they refuse what the change refuses already,',
            '  and the first of them to connect again tells all the others. A server that never lost Redis may go on using what it cached before',
            `  the change until then, for up to ${keyCacheMaxAgeMinutes} minutes. Once Redis answers, run the same command again: it tells every server at once (exit 0).`
        ].join('\n'), notAnnouncedExitCode, true);
        this.name = 'ChangeNotAnnounced';
    }
}

/** The auth epoch, but a move Redis could not take is remembered rather than thrown. */
function rememberingFailedMoves(authEpoch: AuthEpoch, failed: (error: EpochNotMoved) => void): AuthEpoch {

    return {
        current: () => authEpoch.current(),
        bump: () => authEpoch.bump().catch((error: unknown) => {

            if (!(error instanceof EpochNotMoved)) {
                throw error;
            }

            failed(error);
        }),
        subscribe: (listener) => authEpoch.subscribe(listener),
        listening: () => authEpoch.listening(),
        close: () => authEpoch.close()
    };
}

/**
 * Runs a command's change of access (a revocation, a suspension…) against the database, the source of truth,
 * even while Redis does not answer: an operator must be able to revoke a leaked key during a Redis outage.
 * `print` then says what was done, and should the running servers not have been told, `ChangeNotAnnounced`
 * says what that leaves to do.
 */
export async function changeOfAccess<T>(work: (services: Services) => Promise<T>, print: (outcome: T) => void): Promise<void> {

    let notMoved: EpochNotMoved | undefined;
    const outcome = await withServices((services) => {

        const authEpoch = rememberingFailedMoves(services.accounts.authEpoch, (error) => (notMoved ??= error));
        return work({ ...services, accounts: { ...services.accounts, authEpoch } });
    }, { redisMayBeDown: true });

    print(outcome);
    if (notMoved) {
        throw new ChangeNotAnnounced(notMoved.reason);
    }
}
