#!/usr/bin/env node
/* `family-records-desktop`: the command line (`--help` lists the commands), or with no command the desktop window. */
import { runCli } from '../src/cli';

// A reader that stopped reading (`family-records-desktop watch | head -3`) ends the command, as it ends a filter,
// instead of an unhandled EPIPE with its stack trace. What the command did is done.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {

    if (error.code !== 'EPIPE') {
        throw error;
    }

    process.exit(0);
});

void runCli(process.argv.slice(2)).then((exitCode) => {

    // Whatever is still open (a stream being closed, a browser's child process) must not keep the command from ending:
    // exit once stdout and stderr have gone out (a pipe is asynchronous on some systems).
    process.stdout.write('', () => process.stderr.write('', () => process.exit(exitCode)));
});
