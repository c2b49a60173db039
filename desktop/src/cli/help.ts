import Fs from 'fs';
import Path from 'path';

import type { Command } from './command';

/** The package's version (`--version`), from its package.json (dist/src/cli → the package's root). */
export function version(): string {

    return JSON.parse(Fs.readFileSync(Path.join(__dirname, '../../../package.json'), 'utf8')).version;
}

const environment = `Environment:
  FAMILY_RECORDS_DESKTOP_HOME       where profiles are kept (default: the system's data directory)
  FAMILY_RECORDS_DESKTOP_PROFILE    the profile to use when --profile is not given
  FAMILY_RECORDS_DESKTOP_KEY_STORE  keyring or file: where the keys are kept (default: the keyring if there is one)
  FAMILY_RECORDS_DESKTOP_BROWSER    the program that opens a page (run with the URL as its argument)`;

/** `family-records-desktop --help`: every command, the exit codes and the environment. */
export function overallHelp(commands: Readonly<Record<string, Command>>): string {

    return [
        'family-records-desktop: the desktop messaging client of Family Records.',
        '',
        'Usage: family-records-desktop [command] [options]   (no command opens the desktop window)',
        '',
        'Commands:',
        ...Object.values(commands).map((entry) => `  ${entry.usage}\n      ${entry.summary}`),
        '  help [command]\n      what a command does (or: <command> --help)',
        '',
        'Every command takes --json (one JSON document on stdout; errors as JSON on stderr) and --profile NAME.',
        'A <conversation> is its id (cnv_…) or the beginning of its title or of the other person\'s email.',
        '',
        'Exit codes: 0 done, 1 failed, 2 wrong command line, 3 offline (a message waits in the outbox and is',
        'sent later; people, start and save do nothing offline), 4 not connected or signed out (run connect).',
        '',
        environment
    ].join('\n');
}
