import ChildProcess from 'child_process';
import Fs from 'fs';
import Path from 'path';

import type { Server } from '@hapi/hapi';
import type { Browser } from 'playwright-core';

import { projectRoot } from '../../lib/config';
import type { MessagingActor } from '../../lib/messaging/context';
import type { User } from '../../models/user';
import { desktopHome } from './desktop-service';
import { editPolicyFile } from './policy-files';
import { freePort } from './ports';
import { copyPolicies, scratchDirectory, testServer } from './server';

/*
 * The end-to-end tests' harness: the real service on a fixed port of 127.0.0.1 that a test really stops (its hapi
 * server, not a relay in front) and starts again as a new instance over the same data, and the client's command line
 * run as child processes, each test with a home of its own.
 */

/** The storage quota of the Lite plan in these tests: one small file goes past it. */
export const liteQuotaBytes = 1000;

export interface RestartableService {
    /** The address the client is given: the same for every instance. */
    readonly baseUrl: string;
    /** The instance that runs now (after stop(), the last one, stopped: its services are closed). */
    readonly server: Server;
    /** Stops the instance: its listener closes, open connections end, its services close. */
    stop(): Promise<void>;
    /** Starts a new instance on the same port over the same database (and files, and Redis). */
    start(): Promise<void>;
    /** Registers `setup` on this instance and on every instance start() makes from now on. */
    onEveryInstance(setup: (server: Server) => void): void;
}

/**
 * The real service over loopback HTTP. Its policies ask for a device-flow poll every second, keep the OAuth
 * endpoints' limit per address out of the way, and give Lite a tiny storage quota (the storage_quota conflict).
 */
export async function restartableService(): Promise<RestartableService> {

    const policiesDir = copyPolicies();
    editPolicyFile(policiesDir, 'messaging.yaml', 'interval_seconds: 5', 'interval_seconds: 1');
    editPolicyFile(policiesDir, 'messaging.yaml', 'limit: 60', 'limit: 1000000');
    editPolicyFile(policiesDir, 'plans.yaml', 'storage_quota_bytes: 104857600', `storage_quota_bytes: ${liteQuotaBytes}`);
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl };
    const setups: Array<(server: Server) => void> = [];
    let server = await testServer({ policiesDir, env });
    await server.start();

    return {
        baseUrl,
        get server() {

            return server;
        },
        async stop() {

            await server.stop({ timeout: 2000 });
        },
        async start() {

            server = await testServer({ shareWith: server, policiesDir, env });
            setups.forEach((setup) => setup(server));
            await server.start();
        },
        onEveryInstance(setup) {

            setups.push(setup);
            setup(server);
        }
    };
}

/** The messaging actor of a user, as the services take it. */
export function actorOf(user: User): MessagingActor {

    return { userId: user.id, familyLongId: user.family_long_id!, isManager: user.role === 'manager' };
}

/** The bodies of a conversation's messages as the service keeps them, in the order it took them. */
export async function bodiesOnServer(server: Server, conversationId: string): Promise<Array<string | null>> {

    const messages = await server.app.services.messaging.models.Message.findAll({ where: { conversation_id: conversationId }, order: [['created_at', 'ASC'], ['id', 'ASC']] });
    return messages.map((message) => message.body as string | null);
}

/** A finished run of the command line. */
export interface CliResult {
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
}

export const cliPath = Path.join(projectRoot, 'desktop', 'dist', 'bin', 'family-records-desktop.js');

/**
 * The command line of one person's computer: a home of its own (FAMILY_RECORDS_DESKTOP_HOME), secrets in the key
 * file (no keyring here), and a "browser" that only writes down the addresses it was asked to open.
 */
export class DesktopCli {

    readonly home = desktopHome();
    readonly browserLog = Path.join(scratchDirectory(), 'opened-urls');
    readonly browserScript = Path.join(scratchDirectory(), 'record-url.sh');

    constructor() {

        Fs.writeFileSync(this.browserScript, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${this.browserLog}'\n`, { mode: 0o700 });
    }

    get env(): NodeJS.ProcessEnv {

        const { FAMILY_RECORDS_DESKTOP_PROFILE: _ignored, ...inherited } = process.env;
        return { ...inherited, FAMILY_RECORDS_DESKTOP_HOME: this.home, FAMILY_RECORDS_DESKTOP_KEY_STORE: 'file', FAMILY_RECORDS_DESKTOP_BROWSER: this.browserScript };
    }

    /** The addresses the client asked the browser to open, oldest first. */
    openedUrls(): string[] {

        return Fs.existsSync(this.browserLog) ? Fs.readFileSync(this.browserLog, 'utf8').split('\n').filter(Boolean) : [];
    }

    spawn(args: string[]): ChildProcess.ChildProcessWithoutNullStreams {

        return ChildProcess.spawn(process.execPath, [cliPath, ...args], { env: this.env, stdio: 'pipe' });
    }

    /** Runs a command to its end. */
    run(args: string[]): Promise<CliResult> {

        return finished(this.spawn(args));
    }

    /** Runs a command with --json that must succeed: its JSON document. */
    async json<T = any>(args: string[]): Promise<T> {

        const result = await this.run([...args, '--json']);
        if (result.code !== 0) {
            throw new Error(`family-records-desktop ${args.join(' ')} exited ${result.code}: ${result.stderr}${result.stdout}`);
        }

        return JSON.parse(result.stdout) as T;
    }
}

/** Collects a child's output until it ends. */
export function finished(child: ChildProcess.ChildProcessWithoutNullStreams): Promise<CliResult> {

    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {

        stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {

        stderr += chunk.toString();
    });
    return new Promise((resolve, reject) => {

        child.on('error', reject);
        child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
}

/** Resolves with the output so far once `pattern` shows in the child's stdout or stderr. */
export function waitForOutput(child: ChildProcess.ChildProcessWithoutNullStreams, pattern: RegExp): Promise<RegExpExecArray> {

    let seen = '';
    return new Promise((resolve, reject) => {

        const look = (chunk: Buffer) => {

            seen += chunk.toString();
            const match = pattern.exec(seen);
            if (match) {
                child.stdout.off('data', look);
                child.stderr.off('data', look);
                resolve(match);
            }
        };

        child.stdout.on('data', look);
        child.stderr.on('data', look);
        child.once('close', (code) => reject(new Error(`the client exited (${code}) before printing ${pattern}: ${seen}`)));
    });
}

/** Polls `condition` every 10 ms until it holds (the test's own timeout bounds it). */
export async function eventually(condition: () => Promise<boolean> | boolean): Promise<void> {

    while (!await condition()) {
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
}

/**
 * What a person does on the site with the address the client opened: signs in on /login, lands on /device with
 * the code, checks it is the one the client printed, and approves. Resolves with the device name the page showed.
 */
export async function approveInChromium(browser: Browser, url: string, account: { email: string; password: string }, userCode: string): Promise<string> {

    const context = await browser.newContext();
    try {
        const page = await context.newPage();
        await page.goto(url);
        await page.fill('input[name="email"]', account.email);
        await page.fill('input[name="password"]', account.password);
        await page.click('button:has-text("Sign in")');
        await page.waitForURL((address) => address.pathname === '/device');
        const shown = await page.textContent('body');
        if (!shown?.includes(userCode)) {
            throw new Error(`the /device page does not show the code ${userCode} the client printed`);
        }

        const deviceName = (await page.textContent('h1 .device-name')) ?? '';
        await page.click('button:has-text("Approve")');
        await page.waitForSelector('text=Return to your device');
        return deviceName;
    }
    finally {
        await context.close();
    }
}

/** A user code as the service shows it (XXXX-XXXX), as `connect` prints it. */
const userCodePattern = /\b([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\b/;

/**
 * `connect <baseUrl>` to its end: once the client has printed its code and asked the browser to open the page,
 * `approve` does what the person does with them. Resolves with the run and the code.
 */
export async function connectCli(cli: DesktopCli, baseUrl: string, approve: (userCode: string, openedUrl: string) => Promise<unknown>,
    extraArgs: string[] = []): Promise<CliResult & { userCode: string }> {

    const opened = cli.openedUrls().length;
    const child = cli.spawn(['connect', baseUrl, ...extraArgs]);
    const done = finished(child);
    const [, userCode] = await waitForOutput(child, userCodePattern);
    await eventually(() => cli.openedUrls().length > opened);
    await approve(userCode, cli.openedUrls()[opened]);
    return { ...await done, userCode };
}
