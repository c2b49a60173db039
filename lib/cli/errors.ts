import { PolicyError } from '../../gateway/policies/data-file';
import { ConfigError } from '../config';
import { databaseUnavailable, type DatabaseUnavailable } from '../database-unavailable';
import { ServiceError } from '../errors';

/** A failure the CLI explains in its own words; `exitCode` 2 means the command line was wrong. */
export class CliError extends Error {
    /** `warning`: the command did its work, and says what it leaves to do. */
    constructor(message: string, readonly exitCode = 1, readonly warning = false) {

        super(message);
        this.name = 'CliError';
    }
}

/** The command line itself is wrong: names the usage of the command to help fix it. */
export class UsageError extends CliError {
    constructor(problem: string, usage: string) {

        super(`${problem} (usage: family-records ${usage})`, 2);
        this.name = 'UsageError';
    }
}

const unexpectedHint = 'check the configuration (DATABASE_URL, REDIS_URL, DATA_DIR…: family-records --help) and that the database is reachable';

/** What the CLI says when the database cannot do its work now, by why (lib/database-unavailable.ts). */
const unavailableWords: Readonly<Record<DatabaseUnavailable['reason'], (message: string) => string>> = {
    // SQLite waits its busy timeout for another process's write (the server's, a backup's), then gives up: nothing is misconfigured.
    busy: (message) => `the database is busy: another process kept it locked longer than this command waits (${message}); try again`,
    unreachable: (message) => `the database does not answer (${message}): check DATABASE_URL (family-records --help) and that the database is running, then try again`
};

/** Prints the error on stderr, one line where possible, and returns the exit code. */
export function reportError(error: unknown): number {

    // Failures that explain themselves: a broken rule, a bad command line, a bad setting, an invalid policy file.
    if (error instanceof CliError || error instanceof ServiceError || error instanceof ConfigError || error instanceof PolicyError) {
        process.stderr.write(`${error instanceof CliError && error.warning ? 'warning' : 'error'}: ${error.message}\n`);
        return error instanceof CliError ? error.exitCode : 1;
    }

    const unavailable = databaseUnavailable(error);
    if (unavailable) {
        process.stderr.write(`error: ${unavailableWords[unavailable.reason](unavailable.message)}\n`);
        return 1;
    }

    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message} (unexpected: ${unexpectedHint})\n`);
    return 1;
}
