/*
 * `npm test`: runs the linter (`npm run lint`), the whole lab suite on the embedded default
 * (SQLite, in-process stores) and the whole suite again against PostgreSQL and Redis on
 * 127.0.0.1 when they answer (in a database of its own that it drops afterwards), all three at
 * once: a variant spends most of its time waiting, not computing. Each one's output is kept and
 * printed whole when it ends, so that the runs do not interleave. Ends with one line
 * `N passed, N failed` for the whole run (with `; lint: N problems` when the linter found any);
 * exits non-zero when anything failed.
 */
import ChildProcess from 'child_process';
import Crypto from 'crypto';
import Path from 'path';

import { deleteRedisKeys, redisAnswers, scratchDatabase } from './helpers/scratch-services';

const projectRoot = Path.resolve(__dirname, '../..');
const postgresAdminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Outcome {
    variant: string;
    passed: number;
    failed: number;
    skipped: number;
    exitCode: number;
    /** lab's report of what failed, or the end of its output when it failed without one (a crash). */
    failures?: string;
}

/** The most of one variant's failures repeated at the end: enough for a few stack traces, short of flooding. */
const failuresShown = 6000;

/** What went wrong in a variant, from lab's console output (colours removed). */
function failuresIn(text: string, exitCode: number | null): string | undefined {

    const report = /\nFailed tests:\n[\s\S]*?\n\d+ of \d+ tests? failed/.exec(text)?.[0];
    if (report) {
        return report.length > failuresShown ? `${report.slice(0, failuresShown)}\n[… cut; the whole report is above]` : report;
    }

    return exitCode === 0 ? undefined : `lab exited with ${exitCode} without a report of failed tests; the end of its output:\n${text.slice(-failuresShown)}`;
}

interface LintOutcome {
    exitCode: number;
    /** ESLint's report, when it found problems or failed. */
    report?: string;
}

/** A child process run beside the others: its stdout and stderr kept in the order they came, and written out whole under `title` when it ends. */
function runKept(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ exitCode: number | null; stdout: string }> {

    const started = Date.now();
    const child = ChildProcess.spawn(command, args, { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const kept: Array<{ stream: NodeJS.WriteStream; chunk: Buffer }> = [];
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {

        stdout += chunk.toString();
        kept.push({ stream: process.stdout, chunk });
    });
    child.stderr.on('data', (chunk: Buffer) => kept.push({ stream: process.stderr, chunk }));

    return new Promise((resolve) => {

        child.on('close', (exitCode) => {

            process.stdout.write(`\n=== ${title} (${Math.round((Date.now() - started) / 1000)} s) ===\n`);
            for (const { stream, chunk } of kept) {
                stream.write(chunk);
            }

            resolve({ exitCode, stdout });
        });
    });
}

/** `npm run lint`: it takes seconds, and a lint failure still lets the tests run and report. */
async function runLint(): Promise<LintOutcome> {

    const { exitCode, stdout } = await runKept('lint', 'npm', ['run', '--silent', 'lint']);
    if (exitCode === 0) {
        process.stdout.write('No problems.\n');
    }

    return { exitCode: exitCode ?? 1, report: exitCode === 0 ? undefined : stdout.trim().slice(-failuresShown) };
}

/** The closing line's lint part: empty when ESLint passed. */
function lintSummary(lint: LintOutcome): string {

    if (lint.exitCode === 0) {
        return '';
    }

    const problems = /(\d+) problems?/.exec(lint.report?.replace(/\u001b\[[0-9;]*m/g, '') ?? '')?.[1];
    return problems ? `; lint: ${problems} problem${problems === '1' ? '' : 's'}` : '; lint failed';
}

async function runLab(variant: string, env: NodeJS.ProcessEnv): Promise<Outcome> {

    const lab = Path.join(projectRoot, 'node_modules', '.bin', 'lab');
    const args = ['dist/test', 'desktop/dist/test', '-r', 'console', '-l', '-m', '30000', ...process.argv.slice(2)];
    const { exitCode, stdout } = await runKept(`test variant: ${variant}`, lab, args, env);

    const text = stdout.replace(/\u001b\[[0-9;]*m/g, '');
    const failedOf = /(\d+) of (\d+) tests? failed/.exec(text);
    const complete = /(\d+) tests? complete/.exec(text);
    const skipped = Number(/(\d+) skipped/.exec(text)?.[1] ?? 0);
    const total = Number(failedOf?.[2] ?? complete?.[1] ?? 0);
    const failed = Number(failedOf?.[1] ?? (exitCode === 0 ? 0 : 1));
    return { variant, passed: Math.max(total - failed - skipped, 0), failed, skipped, exitCode: exitCode ?? 1, failures: failuresIn(text, exitCode) };
}

async function main(): Promise<void> {

    const [database, redis] = await Promise.all([scratchDatabase(postgresAdminUrl, 'fr_test'), redisAnswers(redisUrl)]);
    const redisPrefix = `fr-test-${Crypto.randomBytes(4).toString('hex')}:`;
    let lint: LintOutcome;
    let outcomes: Outcome[];
    try {
        const runs = [runLab('sqlite (embedded default)', { TEST_VARIANT: 'sqlite', TEST_REDIS_URL: '' })];
        if (database || redis) {
            const redisEnv = redis ? { TEST_REDIS_URL: redisUrl, TEST_REDIS_PREFIX: redisPrefix } : { TEST_REDIS_URL: '' };
            const variant = [database && 'postgresql', redis && 'redis'].filter(Boolean).join(' + ');
            runs.push(runLab(variant, database ? { TEST_VARIANT: 'postgres', TEST_DATABASE_URL: database.url, ...redisEnv } : { TEST_VARIANT: 'sqlite', ...redisEnv }));
            process.stdout.write(`\nRunning the linter and the test variants sqlite and ${variant} at once; each one's output follows whole when it ends.\n`);
        }
        else {
            process.stdout.write('\nPostgreSQL and Redis do not answer on 127.0.0.1: running the linter and the SQLite variant only; each one\'s output follows whole when it ends.\n');
        }

        [lint, outcomes] = await Promise.all([runLint(), Promise.all(runs)]);
    }
    finally {
        await database?.drop();
        if (redis) {
            await deleteRedisKeys(redisUrl, redisPrefix);
        }
    }

    // Said again at the very end, where a CI log cut to its last lines still shows it.
    if (lint.report) {
        process.stdout.write(`\n=== what lint found ===\n${lint.report}\n`);
    }

    for (const outcome of outcomes.filter((each) => each.failures)) {
        process.stdout.write(`\n=== what failed in variant ${outcome.variant} ===\n${outcome.failures!.trim()}\n`);
    }

    const passed = outcomes.reduce((sum, outcome) => sum + outcome.passed, 0);
    const failed = outcomes.reduce((sum, outcome) => sum + outcome.failed, 0);
    const skipped = outcomes.reduce((sum, outcome) => sum + outcome.skipped, 0);
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${lintSummary(lint)}\n`);
    process.exitCode = failed > 0 || lint.exitCode !== 0 || outcomes.some((outcome) => outcome.exitCode !== 0) ? 1 : 0;
}

// lab loads every file under dist/test: run only when executed as `npm test`, not when lab loads this file.
if (require.main === module) {
    void main();
}
