import ChildProcess from 'child_process';
import Fs from 'fs';
import Net from 'net';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import { QueryTypes } from 'sequelize';

import { projectRoot } from '../../../lib/config';
import { openDatabase } from '../../../lib/database';
import { editPolicyFile } from '../../helpers/policy-files';
import { pathOf } from '../../plugins/files/fixtures';
import { copyPolicies, scratchDirectory, testRedisUrl } from '../../helpers/server';
import { cliEnvironment, cliScript, runCli } from './run';

export const lab = Lab.script();
const { describe, it } = lab;

/** Resolves with everything printed up to the line matching `pattern`; rejects when the process ends first. */
function outputUntil(child: ChildProcess.ChildProcess, pattern: RegExp): Promise<string> {

    return new Promise((resolve, reject) => {

        let output = '';
        const onData = (chunk: Buffer) => {

            output += chunk.toString();
            if (pattern.test(output)) {
                child.stdout!.removeListener('data', onData);
                resolve(output);
            }
        };

        child.stdout!.on('data', onData);
        child.once('exit', (code) => reject(new Error(`serve exited (${code}) before printing ${pattern}:\n${output}`)));
    });
}

/** `serve` in a child process, on a fresh SQLite database (and the test Redis, when there is one). */
function spawnServe(settings: Record<string, string> = {}) {

    // Always a fresh SQLite database: serve seeds only an empty one, and the PostgreSQL test database is shared by the suite.
    const env = cliEnvironment({
        DATA_DIR: scratchDirectory(),
        PORT: '0',
        ...(testRedisUrl ? { REDIS_URL: testRedisUrl, REDIS_PREFIX: process.env.TEST_REDIS_PREFIX ?? 'fr-test:' } : {}),
        ...settings
    });
    const child = ChildProcess.spawn(process.execPath, [cliScript, 'serve'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const served = { child, stderr: '', exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))) };
    child.stderr.on('data', (chunk: Buffer) => (served.stderr += chunk.toString()));
    return served;
}

describe('family-records serve', () => {

    it('seeds a demo family on an empty database, serves it over HTTP and stops on SIGTERM', async () => {

        const served = spawnServe();
        const { child, exited } = served;

        try {
            const output = await outputUntil(child, /listening on (http:\/\/\S+)\n/);
            const url = /listening on (http:\/\/\S+)\n/.exec(output)![1];
            const key = /frk_[A-Za-z0-9]+/.exec(output)?.[0];
            expect(url).to.not.endWith(':0');
            expect(key, output).to.exist();
            expect(output).to.include(`curl -H "Authorization: Bearer ${key}" "${url}/api/v1/persons`);

            const response = await fetch(`${url}/api/v1/persons`, { headers: { authorization: `Bearer ${key}` } });
            expect(response.status).to.equal(200);
            const body = await response.json() as { data: { first_name: string }[] };
            expect(body.data.map((person) => person.first_name)).to.include(['Zoë', 'José']);

            // The demo's files are stored: a picture at its signed URL, a PDF through a document's redirect (the URLs' host is PUBLIC_BASE_URL's, not the port 0 one).
            const gallery = await (await fetch(`${url}/api/v1/gallery`, { headers: { authorization: `Bearer ${key}` } })).json() as { data: { url: string; size_bytes: number }[] };
            const picture = await fetch(`${url}${pathOf(gallery.data[0].url)}`);
            expect(picture.status).to.equal(200);
            expect(picture.headers.get('content-type')).to.equal('image/png');
            expect((await picture.arrayBuffer()).byteLength).to.equal(gallery.data[0].size_bytes);

            const documents = await (await fetch(`${url}/api/v1/documents`, { headers: { authorization: `Bearer ${key}` } })).json() as { data: { id: string }[] };
            const redirect = await fetch(`${url}/api/v1/documents/${documents.data[0].id}/file`, { headers: { authorization: `Bearer ${key}` }, redirect: 'manual' });
            expect(redirect.status).to.equal(302);
            const pdf = Buffer.from(await (await fetch(`${url}${pathOf(redirect.headers.get('location')!)}`)).arrayBuffer());
            expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
        }
        finally {
            child.kill('SIGTERM');
        }

        expect(await exited, served.stderr).to.equal(0);
        expect(served.stderr).to.include('SIGTERM: stopping');
    });

    it('seeds nothing on an empty configured database (DATABASE_URL set): no demo accounts or key go live in production', async () => {

        const directory = scratchDirectory();
        const served = spawnServe({ DATA_DIR: directory, DATABASE_URL: `sqlite:${Path.join(directory, 'production.sqlite')}` });
        const { child, exited } = served;

        try {
            const output = await outputUntil(child, /listening on (http:\/\/\S+)\n/);
            expect(output).to.include('The database has no family yet: `family-records family create` makes one');
            expect(output).to.not.match(/frk_|seeded|password|sign-in/i);
        }
        finally {
            child.kill('SIGTERM');
        }

        expect(await exited, served.stderr).to.equal(0);
        const database = openDatabase(`sqlite:${Path.join(directory, 'production.sqlite')}`);
        try {
            expect(await database.query('SELECT count(*) AS n FROM families UNION ALL SELECT count(*) FROM users UNION ALL SELECT count(*) FROM api_keys', { type: QueryTypes.SELECT })).to.equal([{ n: 0 }, { n: 0 }, { n: 0 }]);
        }
        finally {
            await database.close();
        }
    });

    it('reloads the policies on SIGHUP, and keeps serving, with WATCH_POLICIES=false', async () => {

        const policiesDir = copyPolicies();
        const served = spawnServe({ WATCH_POLICIES: 'false', POLICIES_DIR: policiesDir });
        const { child, exited } = served;

        try {
            const output = await outputUntil(child, /listening on (http:\/\/\S+)\n/);
            const url = /listening on (http:\/\/\S+)\n/.exec(output)![1];
            const key = /frk_[A-Za-z0-9]+/.exec(output)![0];

            // Not watched: only the signal brings the edit in.
            editPolicyFile(policiesDir, 'rate-limits.yaml', 'per_key:\n      limit: 600\n', 'per_key:\n      limit: 599\n');
            child.kill('SIGHUP');
            for (let waited = 0; !served.stderr.includes('policies reloaded') && child.exitCode === null && waited < 5000; waited += 50) {
                await new Promise((resolve) => setTimeout(resolve, 50));
            }

            const response = await fetch(`${url}/api/v1/persons`, { headers: { authorization: `Bearer ${key}` } });
            expect(response.status).to.equal(200);
            expect(response.headers.get('ratelimit-policy')!).to.startWith('"key";q=599;');
        }
        finally {
            child.kill('SIGTERM');
        }

        expect(await exited, served.stderr).to.equal(0);
    });

    it('ends at once, naming the setting to change, when its port is taken', async () => {

        const taken = Net.createServer();
        await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
        const { port } = taken.address() as Net.AddressInfo;
        try {
            // runCli gives up after 60 s: a server left half started kept the process alive for ever.
            const outcome = await runCli(['serve'], cliEnvironment({ DATA_DIR: scratchDirectory(), PORT: String(port) }));

            expect(outcome.exitCode).to.equal(1);
            expect(outcome.stderr).to.equal(`error: cannot listen on 127.0.0.1:${port}: the port is already in use (another service, or this one started twice); set PORT (or HOST) to another\n`);
        }
        finally {
            taken.close();
        }
    });

    it('names HOST when its name does not resolve, and only then', async () => {

        const outcome = await runCli(['serve'], cliEnvironment({ DATA_DIR: scratchDirectory(), HOST: 'nowhere.invalid' }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.match(/^error: cannot listen on nowhere\.invalid:3000: that host name does not resolve.*; set PORT \(or HOST\) to another\n$/);

        const database = await runCli(['serve'], cliEnvironment({ DATA_DIR: scratchDirectory(), DATABASE_URL: 'postgres://postgres@nowhere.invalid/db' }));
        expect(database.exitCode).to.equal(1);
        expect(database.stderr).to.not.include('cannot listen');
    });

    it('refuses to start, naming FILES_DIR, when it cannot be a directory of files', async () => {

        const file = Path.join(scratchDirectory(), 'not-a-directory');
        Fs.writeFileSync(file, '');
        // Without the check the server would start, and runCli give up on it after 60 s.
        const outcome = await runCli(['serve'], cliEnvironment({ DATA_DIR: scratchDirectory(), PORT: '0', FILES_DIR: file }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.startWith(`error: Invalid configuration: FILES_DIR ${file} cannot hold the uploaded files: EEXIST`);
    });

    it('refuses to start, naming PDF_FALLBACK_FONTS, when a file it lists is missing or no font', async () => {

        const missing = Path.join(scratchDirectory(), 'missing.ttc');
        const notAFont = Path.join(scratchDirectory(), 'notes.ttf');
        Fs.writeFileSync(notAFont, 'These are notes, not a font.');
        for (const [file, problem] of [[missing, 'ENOENT'], [notAFont, 'Unknown font format']]) {
            // Without the check the server would start, and the first PDF export needing the font fail part-way.
            const outcome = await runCli(['serve'], cliEnvironment({ DATA_DIR: scratchDirectory(), PORT: '0', PDF_FALLBACK_FONTS: file }));

            expect(outcome.exitCode).to.equal(1);
            expect(outcome.stderr).to.startWith(`error: Invalid configuration: PDF_FALLBACK_FONTS ${file}: `);
            expect(outcome.stderr).to.include(problem);
        }
    });

    it('names a bad setting without calling it unexpected', async () => {

        for (const [name, value, problem] of [['HOST', '999.1.1.1', '"HOST" must be a host name or an IP address to listen on'], ['PORT', 'abc', '"PORT" must be a number']]) {
            const outcome = await runCli(['serve'], cliEnvironment({ DATA_DIR: scratchDirectory(), [name]: value }));

            expect(outcome.exitCode).to.equal(1);
            expect(outcome.stderr).to.equal(`error: Invalid configuration: ${problem}\n`);
        }
    });
});
