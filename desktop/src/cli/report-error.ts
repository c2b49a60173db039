import { NotConnectedError } from '../engine/errors';
import { ApiError, OAuthError, OfflineError, SignedOutError } from '../sdk/errors';
import { CliError, exitCodes } from './errors';
import type { Output } from './output';

/** The plain words for the device flow's endings (RFC 8628 §3.5). */
const signInEndings: Readonly<Record<string, string>> = {
    access_denied: 'the sign-in was denied in the browser: nothing was connected',
    expired_token: 'the code expired before it was approved: run connect again for a new one'
};

const connectAgain = 'run `family-records-desktop connect <server-url>` to connect again';

/** The code, words and exit code of an expected failure; undefined for one nobody expected. */
function explained(error: unknown): { code: string; message: string; exitCode: number } | undefined {

    if (error instanceof CliError) {
        return { code: error.code, message: error.message, exitCode: error.exitCode };
    }

    if (error instanceof OfflineError) {
        return { code: 'offline', message: `offline: ${error.message}`, exitCode: exitCodes.offline };
    }

    if (error instanceof NotConnectedError) {
        return { code: 'not_connected', message: error.message, exitCode: exitCodes.notConnected };
    }

    if (error instanceof SignedOutError) {
        return { code: 'signed_out', message: `${error.message} (${connectAgain})`, exitCode: exitCodes.notConnected };
    }

    if (error instanceof ApiError) {
        return { code: error.code, message: `the service refused: ${error.message} (${error.status} ${error.code})`, exitCode: exitCodes.error };
    }

    if (error instanceof OAuthError) {
        return { code: error.error, message: signInEndings[error.error] ?? `the service refused the sign-in: ${error.message}`, exitCode: exitCodes.error };
    }

    return undefined;
}

/** Reports a failure on stderr (JSON with `--json`) and returns the exit code: no stack trace for an expected one. */
export function reportError(error: unknown, output: Output): number {

    const known = explained(error);
    if (known) {
        output.error(known.code, known.message);
        return known.exitCode;
    }

    const message = error instanceof Error ? error.message : String(error);
    output.error('unexpected', `${message} (unexpected: this is a bug of family-records-desktop)`);
    if (!output.json && error instanceof Error && error.stack) {
        output.note(error.stack);
    }

    return exitCodes.error;
}
