#!/usr/bin/env node
/*
 * The operator CLI (DESIGN.md §6): `family-records --help` lists the commands.
 * `npm start` runs `family-records serve`.
 */
import { runCli } from '../lib/cli';
import { reportClosedStdout } from '../lib/cli/output';

reportClosedStdout();
void runCli(process.argv.slice(2)).then((exitCode) => {

    if (exitCode !== 0) {
        // A command that failed may have left something open (a deployment that failed to initialise still holds
        // its database and watchers): its error is on stderr already, and waiting would only hang the shell.
        // Exit once what was written to stderr has gone out (a pipe is asynchronous on some systems).
        process.stderr.write('', () => process.exit(exitCode));
    }
});
