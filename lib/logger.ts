/** Log lines go to stderr as `time [tags] message`; stdout stays clean for `--json` output. */
export type Log = (tags: string[], message: string) => void;

export function consoleLog(quiet = false): Log {

    return (tags, message) => {

        if (quiet && !tags.includes('error')) {
            return;
        }

        process.stderr.write(`${new Date().toISOString()} [${tags.join(',')}] ${message}\n`);
    };
}
