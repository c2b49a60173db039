/** The exit codes of `family-records-desktop`. */
export const exitCodes = {
    ok: 0,
    error: 1,
    usage: 2,
    /** The service could not be reached: a message is kept (in the outbox) and goes out once it can be; what only the service can answer (people, start, save) is not done. */
    offline: 3,
    /** No profile is connected, or its grant is gone: run `connect`. */
    notConnected: 4
} as const;

/** A failure the command line explains in its own words, with its exit code and a code for `--json`. */
export class CliError extends Error {
    constructor(message: string, readonly code = 'error', readonly exitCode: number = exitCodes.error) {

        super(message);
        this.name = 'CliError';
    }
}

/** The command line itself is wrong: names the usage that would be right. */
export class UsageError extends CliError {
    constructor(problem: string, usage: string) {

        super(`${problem} (usage: family-records-desktop ${usage})`, 'usage', exitCodes.usage);
        this.name = 'UsageError';
    }
}
