#!/usr/bin/env node
/*
 * The operator CLI (DESIGN.md §6): `family-records --help` lists the commands.
 * `npm start` runs `family-records serve`.
 */
import { runCli } from '../lib/cli';

void runCli(process.argv.slice(2)).then((exitCode) => {

    process.exitCode = exitCode;
});
