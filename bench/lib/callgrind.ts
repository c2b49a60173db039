/*
 * A node process run under valgrind's callgrind, which counts the instructions it executes. Unlike
 * time, the count of the same work barely moves with whatever else the machine is doing
 * (/work/.library/env: "the same total twice, once with the other core loaded"), so small costs can
 * be compared across runs and machines. Counting is zeroed and read from outside with
 * callgrind_control, between slices of load sent from this process.
 */
import { type ChildProcess, execFile, spawn } from 'child_process';
import Fs from 'fs';
import Path from 'path';
import { promisify } from 'util';

import { scratchDirectory } from '../../test/helpers/server';

const run = promisify(execFile);

export interface CountedProcess {
    /** The line the process printed to say it was ready. */
    readyLine: string;
    /** Zeroes the counters. */
    zero(): Promise<void>;
    /** Instructions executed since the last zero, by every thread of the process. */
    instructions(): Promise<number>;
    /** Resident memory of the process, valgrind's own included, in bytes. */
    rssBytes(): number;
    stop(): Promise<void>;
}

export async function assertCallgrindInstalled(): Promise<void> {

    try {
        await run('valgrind', ['--version']);
        await run('callgrind_control', ['-h']);
    }
    catch {
        throw new Error('valgrind is not installed: on Debian, apt-get install valgrind (it brings callgrind_control)');
    }
}

/** Runs `node script` under callgrind and waits for a stdout line starting with `readyPrefix`. */
export async function countInstructions(script: string, readyPrefix: string): Promise<CountedProcess> {

    const directory = scratchDirectory();     // callgrind's dumps, a few MB each; removed by stop()

    const child = spawn('valgrind', [
        '--tool=callgrind',
        `--callgrind-out-file=${Path.join(directory, 'callgrind.out.%p')}`,
        process.execPath,
        // No background threads and a fixed heap-growing schedule: V8's compiler and collector then
        // work at the same points of every run instead of whenever valgrind schedules their threads.
        '--single-threaded',
        '--predictable-gc-schedule',
        script
    ], { stdio: ['ignore', 'pipe', 'pipe'] });

    const errors: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
    const readyLine = await new Promise<string>((resolve, reject) => {

        let partial = '';
        child.stdout!.on('data', (chunk: Buffer) => {

            const lines = (partial + chunk.toString()).split('\n');
            partial = lines.pop()!;
            const ready = lines.find((line) => line.startsWith(readyPrefix));
            if (ready) {
                resolve(ready);
            }
        });

        child.once('exit', (code) => reject(new Error(`${script} under callgrind exited with ${code} before it was ready:\n${errors.join('')}`)));
    });

    const pid = child.pid!;
    const control = (option: string) => run('callgrind_control', [option, String(pid)]);
    return {
        readyLine,
        zero: async () => {

            await control('-z');
        },
        instructions: async () => {

            await control('-d');
            return totalOfNewestDump(directory, pid);
        },
        rssBytes: () => residentBytes(pid),
        stop: async () => {

            await stopped(child);
            Fs.rmSync(directory, { recursive: true, force: true });
        }
    };
}

/** The `totals:` line of the dump callgrind_control -d just wrote (callgrind.out.<pid>.<n>, n counting up); the dump is then removed. */
function totalOfNewestDump(directory: string, pid: number): number {

    const prefix = `callgrind.out.${pid}.`;
    const newest = Fs.readdirSync(directory)
        .filter((name) => name.startsWith(prefix))
        .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
        .pop();

    const totals = newest && /^totals: (\d+)/m.exec(Fs.readFileSync(Path.join(directory, newest), 'utf8'));
    if (!totals) {
        throw new Error(`callgrind wrote no dump with totals for process ${pid} in ${directory}`);
    }

    Fs.rmSync(Path.join(directory, newest));

    return Number(totals[1]);
}

function residentBytes(pid: number): number {

    const status = Fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return 1024 * Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
}

function stopped(child: ChildProcess): Promise<void> {

    return new Promise((resolve) => {

        if (child.exitCode !== null || child.signalCode !== null) {
            return resolve();
        }

        child.once('exit', () => resolve());
        child.kill('SIGTERM');
    });
}
