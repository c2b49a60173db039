/*
 * `npm test`: runs the linter (`npm run lint`), then the whole lab suite on the embedded
 * default (SQLite, in-process stores), then again against PostgreSQL and Redis on 127.0.0.1
 * when they answer, in a database of its own that it drops afterwards. Ends with one line
 * `N passed, N failed` for the whole run (with `; lint: N problems` when the linter found
 * any); exits non-zero when anything failed.
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

/** `npm run lint`, first: it takes seconds, and a lint failure still lets the tests run and report. */
function runLint(): Promise<LintOutcome> {

    process.stdout.write('\n=== lint ===\n');
    const child = ChildProcess.spawn('npm', ['run', '--silent', 'lint'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });

    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {

        output += chunk.toString();
        process.stdout.write(chunk);
    });

    return new Promise((resolve) => {

        child.on('close', (exitCode) => {

            if (exitCode === 0) {
                process.stdout.write('No problems.\n');
            }

            resolve({ exitCode: exitCode ?? 1, report: exitCode === 0 ? undefined : output.trim().slice(-failuresShown) });
        });
    });
}

/** The closing line's lint part: empty when ESLint passed. */
function lintSummary(lint: LintOutcome): string {

    if (lint.exitCode === 0) {
        return '';
    }

    const problems = /(\d+) problems?/.exec(lint.report?.replace(/\u001b\[[0-9;]*m/g, '') ?? '')?.[1];
    return problems ? `; lint: ${problems} problem${problems === '1' ? '' : 's'}` : '; lint failed';
}

function runLab(variant: string, env: NodeJS.ProcessEnv): Promise<Outcome> {

    process.stdout.write(`\n=== test variant: ${variant} ===\n`);
    const lab = Path.join(projectRoot, 'node_modules', '.bin', 'lab');
    const args = ['dist/test', '-r', 'console', '-l', '-m', '30000', ...process.argv.slice(2)];
    const child = ChildProcess.spawn(lab, args, { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });

    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {

        output += chunk.toString();
        process.stdout.write(chunk);
    });

    return new Promise((resolve) => {

        child.on('close', (exitCode) => {

            const text = output.replace(/\u001b\[[0-9;]*m/g, '');
            const failedOf = /(\d+) of (\d+) tests? failed/.exec(text);
            const complete = /(\d+) tests? complete/.exec(text);
            const skipped = Number(/(\d+) skipped/.exec(text)?.[1] ?? 0);
            const total = Number(failedOf?.[2] ?? complete?.[1] ?? 0);
            const failed = Number(failedOf?.[1] ?? (exitCode === 0 ? 0 : 1));
            resolve({ variant, passed: Math.max(total - failed - skipped, 0), failed, skipped, exitCode: exitCode ?? 1, failures: failuresIn(text, exitCode) });
        });
    });
}

async function main(): Promise<void> {

    const lint = await runLint();
    const outcomes: Outcome[] = [await runLab('sqlite (embedded default)', { TEST_VARIANT: 'sqlite', TEST_REDIS_URL: '' })];

    const [database, redis] = await Promise.all([scratchDatabase(postgresAdminUrl, 'fr_test'), redisAnswers(redisUrl)]);
    const redisPrefix = `fr-test-${Crypto.randomBytes(4).toString('hex')}:`;
    try {
        if (database || redis) {
            const redisEnv = redis ? { TEST_REDIS_URL: redisUrl, TEST_REDIS_PREFIX: redisPrefix } : { TEST_REDIS_URL: '' };
            const variant = [database && 'postgresql', redis && 'redis'].filter(Boolean).join(' + ');
            outcomes.push(database ?
                await runLab(variant, { TEST_VARIANT: 'postgres', TEST_DATABASE_URL: database.url, ...redisEnv }) :
                await runLab(variant, { TEST_VARIANT: 'sqlite', ...redisEnv }));
        }
        else {
            process.stdout.write('\nPostgreSQL and Redis do not answer on 127.0.0.1: ran the SQLite variant only.\n');
        }
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
