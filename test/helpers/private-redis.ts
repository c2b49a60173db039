import { spawn, type ChildProcess } from 'child_process';
import Fs from 'fs';
import Path from 'path';

import { accepts, freePort } from './ports';

/** Debian's Redis server, which this machine and CI run; tests that need one of their own skip without it. */
export const redisServerBinary = ['/usr/bin/redis-server', ...(process.env.PATH ?? '').split(':').map((directory) => Path.join(directory, 'redis-server'))]
    .find((path) => Fs.existsSync(path));

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {

    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
        if (Date.now() > deadline) {
            throw new Error(`private Redis: ${what} within ${timeoutMs} ms`);
        }

        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

/**
 * A Redis server of the test's own on a free port of 127.0.0.1, keeping nothing on disk, that the test
 * can stop, start again (empty, as a restarted Redis without persistence is) and pause (SIGSTOP: it keeps
 * its connections open and answers nothing, as a hung Redis or a dropped network path does).
 */
export class PrivateRedis {
    private process?: ChildProcess;

    private constructor(readonly port: number) {}

    static async start(): Promise<PrivateRedis> {

        const redis = new PrivateRedis(await freePort());
        await redis.start();
        return redis;
    }

    get url(): string {

        return `redis://127.0.0.1:${this.port}`;
    }

    async start(): Promise<void> {

        this.process = spawn(redisServerBinary!, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
        await until(() => accepts(this.port), 'not accepting connections');
    }

    async stop(): Promise<void> {

        const child = this.process;
        this.process = undefined;
        if (!child || child.exitCode !== null) {
            return;
        }

        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
        await until(async () => !(await accepts(this.port)), 'still accepting connections');
    }

    pause(): void {

        this.process?.kill('SIGSTOP');
    }

    resume(): void {

        this.process?.kill('SIGCONT');
    }
}
