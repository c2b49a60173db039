import ChildProcess from 'child_process';
import Path from 'path';

import type { Server } from '@hapi/hapi';

import { projectRoot } from '../../../lib/config';
import { testServer } from '../../helpers/server';

/** The compiled CLI, as `npm start` and operators run it. */
/**
 * A CLI test runs the command in new processes, each building the whole service before it works, often
 * several in a row: more than lab's default allows a test on a busy machine, not a hang.
 */
export const cliTestTimeout = 120_000;

export const cliScript = Path.join(projectRoot, 'dist', 'bin', 'family-records.js');

export interface CliOutcome {
    exitCode: number | null;
    stdout: string;
    stderr: string;
}

// Settings of the developer's shell that would point the CLI somewhere else than the test says.
const configurationVariables = ['PORT', 'HOST', 'DATABASE_URL', 'REDIS_URL', 'REDIS_PREFIX', 'DATA_DIR', 'FILES_DIR', 'POLICIES_DIR', 'GATEWAY_CONFIG', 'PUBLIC_BASE_URL', 'TRUSTED_PROXIES', 'SECRET_KEY', 'PDF_FALLBACK_FONTS', 'WATCH_POLICIES'];

/** The environment with `settings` as the only configuration. */
export function cliEnvironment(settings: Record<string, string | undefined>): NodeJS.ProcessEnv {

    const env = { ...process.env };
    for (const name of configurationVariables) {
        delete env[name];
    }

    for (const [name, value] of Object.entries(settings)) {
        if (value !== undefined) {
            env[name] = value;
        }
    }

    return env;
}

/** The settings that point the CLI at the database (and Redis, and auth-epoch marker) of a test server. */
export function cliEnvironmentOf(server: Server, settings: Record<string, string> = {}): NodeJS.ProcessEnv {

    const config = server.app.services.config;
    return cliEnvironment({
        DATA_DIR: config.dataDir,
        DATABASE_URL: config.databaseUrl,
        REDIS_URL: config.redisUrl,
        REDIS_PREFIX: config.redisUrl ? config.redisPrefix : undefined,
        POLICIES_DIR: config.policiesDir,
        ...settings
    });
}

/** A test server and the CLI settings that point at it, for a suite whose tests share both. */
export async function testServerWithCliEnvironment(): Promise<{ server: Server; env: NodeJS.ProcessEnv }> {

    const server = await testServer();
    return { server, env: cliEnvironmentOf(server) };
}

/** Runs the real CLI in a child process and collects what it printed; `stdin`, when given, is all it reads on its standard input. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, stdin?: string | Buffer): Promise<CliOutcome> {

    return new Promise((resolve, reject) => {

        const child = ChildProcess.execFile(process.execPath, [cliScript, ...args], { cwd: projectRoot, env, timeout: 60_000 }, (error, stdout, stderr) => {

            if (error && typeof error.code !== 'number') {
                reject(error);
                return;
            }

            resolve({ exitCode: error ? error.code as number : 0, stdout, stderr });
        });
        if (stdin !== undefined) {
            // A CLI that exits without reading it (a usage error) closes the pipe: not the test's failure.
            child.stdin!.on('error', () => undefined);
            child.stdin!.end(stdin);
        }
    });
}

/** Runs the CLI with its stdout a pipe nobody reads any more (`family-records … | head -0`). */
export function runCliWithStdoutClosed(args: string[], env: NodeJS.ProcessEnv): Promise<Omit<CliOutcome, 'stdout'>> {

    return new Promise((resolve, reject) => {

        const child = ChildProcess.spawn(process.execPath, [cliScript, ...args], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
        // Closed before the CLI has even started: whatever it writes on stdout fails with EPIPE.
        child.stdout.destroy();
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('error', reject);
        child.once('close', (exitCode) => resolve({ exitCode, stderr }));
    });
}

/** Runs the CLI with `--json` and returns the one JSON object it printed; fails on anything else. */
export async function runCliJson(args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, any>> {

    const outcome = await runCli([...args, '--json'], env);
    if (outcome.exitCode !== 0) {
        throw new Error(`family-records ${args.join(' ')} exited ${outcome.exitCode}: ${outcome.stderr}`);
    }

    return JSON.parse(outcome.stdout);
}

const shellQuoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the real CLI with a terminal for its standard input and output (util-linux `script` gives it a pseudo-terminal),
 * typing each answer once the prompt before it has shown. What the terminal showed comes back as `stdout`.
 */
export function runCliAtTerminal(args: string[], env: NodeJS.ProcessEnv, answers: { prompt: string; typed: string }[]): Promise<CliOutcome> {

    return new Promise((resolve, reject) => {

        const command = [process.execPath, cliScript, ...args].map(shellQuoted).join(' ');
        const child = ChildProcess.spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], { cwd: projectRoot, env });
        const pending = [...answers];
        let shown = '';
        let answeredUpTo = 0;
        let stderr = '';
        const timer = setTimeout(() => child.kill(), 60_000);
        child.stdout.on('data', (chunk: Buffer) => {

            shown += chunk.toString();
            const prompted = pending.length > 0 ? shown.indexOf(pending[0].prompt, answeredUpTo) : -1;
            if (prompted >= 0) {
                answeredUpTo = prompted + pending[0].prompt.length;
                child.stdin.write(pending.shift()!.typed);
            }
        });
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('error', reject);
        child.on('close', (exitCode) => {

            clearTimeout(timer);
            resolve({ exitCode, stdout: shown, stderr });
        });
    });
}
