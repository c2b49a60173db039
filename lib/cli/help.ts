import type { Command } from './command';

// DESIGN.md §3, and the settings of the embedded default and of production secrets.
const environment = `Environment:
  PORT / HOST       listen address (default 3000 / 127.0.0.1; PORT=0 picks a free port)
  DATABASE_URL      sqlite:<file> or postgres://… (default: a SQLite file in DATA_DIR)
  DATA_DIR          local state of the embedded default (default <project>/data)
  FILES_DIR         uploaded files (default DATA_DIR/files)
  REDIS_URL         redis://… so several instances share state (default: in-process stores)
  REDIS_PREFIX      prefix of every Redis key, to share one Redis (default fr:)
  POLICIES_DIR      policy data files (default <project>/policies)
  GATEWAY_CONFIG    declarative gateway config (default <project>/gateway/gateway.yaml)
  PUBLIC_BASE_URL   the service's external URL, for links (default http://HOST:PORT, localhost for 0.0.0.0)
  TRUSTED_PROXIES   proxies to believe X-Forwarded-For from: IPs, CIDR ranges (default none)
  SECRET_KEY        master secret, 32+ characters (default: generated once, kept in the database;
                    once set, the database refuses another, or none)
  PDF_FALLBACK_FONTS
                    font files, comma-separated, for the characters DejaVu Sans and Noto Emoji lack
                    in PDF exports (default: the Noto Sans fonts where Linux distributions install them)
  WATCH_POLICIES    reload policies when their files change (default true); SIGHUP reloads either way`;

/** `family-records --help`: every way of calling every command, and the environment. */
export function overallHelp(commands: Readonly<Record<string, Command>>): string {

    return [
        'family-records: operate the Family Records API service.',
        '',
        'Usage: family-records <command> [options]',
        '',
        'Commands:',
        ...Object.values(commands).flatMap((entry) => entry.usage).map((usage) => `  ${usage}`),
        '  help [COMMAND]',
        '',
        'Add --help after a command to see what it does (family-records key --help).',
        'With --json a command prints exactly one JSON object on stdout. Errors go to stderr',
        'with exit code 2 for a wrong command line and 1 for anything else. A change of access saved while',
        'Redis does not answer exits 3, saying on stderr what that leaves to do.',
        '',
        environment
    ].join('\n');
}
