import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';
import Bcrypt from 'bcrypt';

import { servedDemoFiles } from '../../helpers/demo-files';
import { suspendFamily } from '../../../lib/accounts/families';
import { familyWithKey } from '../../helpers/server';
import { sha256Of } from '../../plugins/files/fixtures';
import { cliEnvironment, cliTestTimeout, runCli, runCliAtTerminal, runCliJson, runCliWithStdoutClosed, testServerWithCliEnvironment } from './run';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('family-records CLI', { timeout: cliTestTimeout }, () => {

    let server: Server;
    let env: NodeJS.ProcessEnv;

    before(async () => {

        ({ server, env } = await testServerWithCliEnvironment());
    });

    after(() => server.stop());

    const listPersons = (key: string) => server.inject({ method: 'GET', url: '/api/v1/persons', headers: { authorization: `Bearer ${key}` } });

    it('walks an operator from a new family to a key, and its revocation reaches the running server', async () => {

        const family = await runCliJson(['family', 'create', '--name', 'The Walkthroughs', '--plan', 'family'], env);
        await runCliJson(['api', 'enable', '--family', family.family_long_id, '--resources', 'persons,trees'], env);
        const key = await runCliJson(['key', 'create', '--family', family.family_long_id, '--name', 'Genealogy sync', '--resources', 'persons', '--operations', 'read,search'], env);

        expect(key.key).to.match(/^frk_/);
        expect(key.key.startsWith(key.display_prefix)).to.be.true();
        expect(key.resources).to.equal(['persons']);
        expect(key.operations).to.equal(['read', 'search']);

        const before = await listPersons(key.key);
        expect(before.statusCode).to.equal(200);

        const revoked = await runCliJson(['key', 'revoke', key.id], env);
        expect(revoked.id).to.equal(key.id);
        expect(revoked.revoked_at).to.be.a.string();

        const after = await listPersons(key.key);
        expect(after.statusCode).to.equal(401);
        expect(after.result).to.include({ code: 'invalid_key' });
    });

    // Fifteen CLI processes in a row, each starting the deployment: 16–23 s on an idle two-core machine,
    // more than the suite's 30 s under CI's load (stop 25 failed so).
    it('records every change it makes in the audit log, as the operator (CLI) on this machine, and nothing for a change it did not make', { timeout: 120_000 }, async () => {

        const family = await runCliJson(['family', 'create', '--name', 'The Audited', '--plan', 'family'], env);
        const id = family.family_long_id;
        await runCliJson(['api', 'enable', '--family', id, '--resources', 'persons,trees'], env);
        const key = await runCliJson(['key', 'create', '--family', id, '--name', 'Sync', '--resources', 'persons'], env);
        const user = JSON.parse((await runCli(['user', 'create', '--email', `audited-${id.toLowerCase()}@example.com`, '--password-stdin', '--family', id, '--role', 'manager', '--json'], env, 'a long passphrase')).stdout);
        await runCliJson(['family', 'plan', id, '--plan', 'max'], env);
        for (let time = 0; time < 2; time++) {
            await runCliJson(['family', 'suspend', id, '--reason', 'Audit'], env);
            await runCliJson(['family', 'unsuspend', id], env);
            await runCliJson(['family', 'unsuspend', id], env);
        }

        await runCliJson(['key', 'revoke', key.id], env);
        await runCliJson(['key', 'revoke', key.id], env);
        await runCliJson(['api', 'disable', '--family', id], env);

        const events = await server.app.services.models.AuditEvent.findAll({ where: { family_long_id: id }, order: [['id', 'ASC']] });
        expect(events.map((event) => [event.action, event.target, event.detail])).to.equal([
            ['family.create', id, '“The Audited”, family plan'],
            ['api.enable', null, 'Resources: persons, trees'],
            ['api_key.create', key.id, '“Sync”: persons / read, search, sort, filter / living persons full'],
            ['user.create', user.id, `audited-${id.toLowerCase()}@example.com, manager`],
            ['family.change_plan', id, 'max plan'],
            ['family.suspend', id, 'Audit'],
            ['family.unsuspend', id, null],
            ['family.suspend', id, 'Audit'],
            ['family.unsuspend', id, null],
            ['api_key.revoke', key.id, '“Sync”'],
            ['api.disable', null, null]
        ]);

        for (const event of events) {
            expect(event.toJSON()).to.include({ actor_id: 'cli', actor_email: null, ip: null });
            expect(event.user_agent).to.match(/^family-records CLI, .+@.+$/);
        }
    });

    it('seeds a demo family with demo --json: its key reads every resource on the running server, and a second demo is another family', async () => {

        const demo = await runCliJson(['demo', '--json'], env);
        expect(demo).to.include({ plan: 'family' });
        expect(demo.key).to.match(/^frk_/);
        expect(demo.manager_email).to.contain('@');
        expect(demo.manager_password).to.be.a.string();
        expect(demo.super_admin_email).to.contain('@');
        expect(demo.members).to.have.length(2);
        expect(demo.members.every((member: { email: string; password: string }) => member.email.includes('@') && member.password.length > 0)).to.be.true();

        const all = await server.inject({ method: 'GET', url: '/api/v1/all', headers: { authorization: `Bearer ${demo.key}` } });
        expect(all.statusCode).to.equal(200);
        const resources = JSON.parse(all.payload).data as Record<string, unknown[]>;
        expect(Object.keys(resources).sort()).to.equal(['documents', 'events', 'finances', 'gallery', 'history', 'persons', 'projects', 'trees']);
        expect(Object.values(resources).every((records) => records.length > 0)).to.be.true();

        // Stored by the CLI where the server keeps files (FILES_DIR), and served by it.
        const files = await servedDemoFiles(server, demo.key, demo.family_long_id);
        expect(files).to.have.length(4);
        expect(files.every(({ row, served }) => sha256Of(served) === row.sha256 && served.length === row.size_bytes)).to.be.true();

        const second = await runCliJson(['demo', '--json'], env);
        expect(second.family_long_id).to.not.equal(demo.family_long_id);
    });

    it('refuses to seed a demo family, naming FILES_DIR, when it cannot hold the files: before writing anything', async () => {

        const file = Path.join(server.app.services.config.dataDir, 'not-a-directory');
        Fs.writeFileSync(file, '');
        const { Family, User } = server.app.services.models;
        const [families, users] = [await Family.count(), await User.count()];

        const outcome = await runCli(['demo', '--json'], { ...env, FILES_DIR: file });

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stdout).to.equal('');
        expect(outcome.stderr).to.startWith(`error: Invalid configuration: FILES_DIR ${file} cannot hold the uploaded files: EEXIST`);
        expect([await Family.count(), await User.count()]).to.equal([families, users]);
    });

    it('prints how to use the demo family without --json', async () => {

        const outcome = await runCli(['demo'], env);
        expect(outcome.exitCode).to.equal(0);
        expect(outcome.stdout).to.contain('API key');
        expect(outcome.stdout).to.match(/frk_\S+/);
        expect(outcome.stdout).to.contain('curl');
        expect(outcome.stdout.match(/Member sign-in \(shown once\): demo-\w+-\w+@example\.com \/ \w+/g)).to.have.length(2);
    });

    it('prints exactly one JSON object with --json', async () => {

        const outcome = await runCli(['family', 'create', '--name', 'Zoë\'s family', '--plan', 'max', '--json'], env);

        expect(outcome.exitCode).to.equal(0);
        expect(outcome.stdout.trim()).to.startWith('{');
        expect(outcome.stdout.trim()).to.endWith('}');
        const printed = JSON.parse(outcome.stdout);
        expect(printed).to.include({ name: 'Zoë\'s family', plan: 'max', api_enabled: false });
        expect(printed.family_long_id).to.match(/^fam_/);
    });

    it('prints people-readable lines without --json', async () => {

        const outcome = await runCli(['family', 'create', '--name', 'The Readers', '--plan', 'family'], env);

        expect(outcome.exitCode).to.equal(0);
        expect(outcome.stdout).to.match(/^Created family fam_\w+ "The Readers"\n/);
    });

    it('suspends a family: its keys get 403 family_suspended on the running server until unsuspended', async () => {

        const family = await familyWithKey(server);
        expect((await family.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);

        const suspended = await runCliJson(['family', 'suspend', family.familyLongId], env);
        expect(suspended).to.include({ api_suspended: true, api_suspension_reason: 'Suspended by an operator' });
        const refused = await family.inject('GET', '/api/v1/persons');
        expect(refused.statusCode).to.equal(403);
        expect(refused.result).to.include({ code: 'family_suspended' });

        const lifted = await runCliJson(['family', 'unsuspend', family.familyLongId], env);
        expect(lifted).to.include({ changed: true, api_suspended: false, api_suspended_at: null });
        expect((await family.inject('GET', '/api/v1/persons')).statusCode).to.equal(200);

        // Again: nothing to lift, exit 0, and it says so.
        expect(await runCliJson(['family', 'unsuspend', family.familyLongId], env)).to.equal({ ...lifted, changed: false });
        const told = await runCli(['family', 'unsuspend', family.familyLongId], env);
        expect(told.exitCode).to.equal(0);
        expect(told.stdout).to.equal(`Family ${family.familyLongId} "Test family" was not suspended: nothing changed\n`);
    });

    it('keeps the first suspension of a family suspended again: exit 0, saying since when, by whom and why, changing nothing', async () => {

        const family = await familyWithKey(server);
        const first = await runCliJson(['family', 'suspend', family.familyLongId, '--reason', 'Unpaid invoice'], env);
        expect(first).to.include({ changed: true, api_suspended: true, api_suspension_reason: 'Unpaid invoice', api_suspended_by: 'cli' });
        expect(first.api_suspended_at).to.be.a.string();

        const again = await runCliJson(['family', 'suspend', family.familyLongId, '--reason', 'Scraping'], env);
        expect(again).to.equal({ ...first, changed: false });

        const told = await runCli(['family', 'suspend', family.familyLongId, '--reason', 'Scraping'], env);
        expect(told.exitCode).to.equal(0);
        expect(told.stderr).to.equal('');
        expect(told.stdout).to.startWith(`Family ${family.familyLongId} "Test family" was already suspended since ${first.api_suspended_at} by an operator (CLI): Unpaid invoice\n`);
        expect(told.stdout).to.contain(`family-records family unsuspend ${family.familyLongId}, then family-records family suspend ${family.familyLongId} --reason TEXT`);

        const stored = await server.app.services.models.Family.findByPk(family.familyLongId);
        expect(stored!.api_suspension_reason).to.equal('Unpaid invoice');
        expect(stored!.api_suspended_at!.toISOString()).to.equal(first.api_suspended_at);
    });

    it('names the super-admin who suspended a family by email when the CLI finds it suspended already', async () => {

        const family = await familyWithKey(server);
        const admin = await runCliJson(['user', 'create', '--email', `suspender-${family.familyLongId.toLowerCase()}@example.com`, '--password', 'operators only!', '--role', 'super-admin'], env);
        await suspendFamily(server.app.services.accounts, family.familyLongId, 'Hammering the API', admin.id);

        const told = await runCli(['family', 'suspend', family.familyLongId], env);
        expect(told.exitCode).to.equal(0);
        expect(told.stdout).to.contain(` by ${admin.email}: Hammering the API\n`);
    });

    it('changes a family\'s plan and disables its API', async () => {

        const family = await familyWithKey(server);

        expect(await runCliJson(['family', 'plan', family.familyLongId, '--plan', 'lite'], env)).to.include({ plan: 'lite' });
        expect((await family.inject('GET', '/api/v1/persons')).result).to.include({ code: 'plan_not_eligible' });

        await runCliJson(['family', 'plan', family.familyLongId, '--plan', 'lifetime'], env);
        expect(await runCliJson(['api', 'disable', '--family', family.familyLongId], env)).to.include({ api_enabled: false });
        expect((await family.inject('GET', '/api/v1/persons')).result).to.include({ code: 'api_not_enabled' });
    });

    it('refuses to enable the API of a Lite family, on stderr with nothing on stdout', async () => {

        const family = await runCliJson(['family', 'create', '--name', 'The Lites', '--plan', 'lite'], env);
        const outcome = await runCli(['api', 'enable', '--family', family.family_long_id, '--resources', 'persons', '--json'], env);

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stdout).to.equal('');
        expect(outcome.stderr).to.equal('error: The Lite plan does not include API access; upgrade to Family.\n');
    });

    it('creates users and refuses a second one with the same email', async () => {

        const family = await familyWithKey(server);
        const email = `Manager-${family.familyLongId}@example.com`;
        const user = await runCliJson(['user', 'create', '--email', email, '--password', 'correct horse battery', '--family', family.familyLongId, '--role', 'manager'], env);
        expect(user).to.include({ email: email.toLowerCase(), family_long_id: family.familyLongId, role: 'manager' });

        const again = await runCli(['user', 'create', '--email', email.toLowerCase(), '--password', 'another long one', '--family', family.familyLongId, '--role', 'member'], env);
        expect(again.exitCode).to.equal(1);
        expect(again.stdout).to.equal('');
        expect(again.stderr).to.include('exists already');
    });

    it('reads the password from stdin with --password-stdin, so that it shows in neither ps nor shell history', async () => {

        const family = await familyWithKey(server);
        const email = `stdin-${family.familyLongId}@example.com`.toLowerCase();
        const outcome = await runCli(['user', 'create', '--email', email, '--password-stdin', '--family', family.familyLongId, '--role', 'manager', '--json'], env, 'correct horse battery\n');

        expect(outcome.exitCode).to.equal(0);
        expect(outcome.stderr).to.equal('');
        expect(JSON.parse(outcome.stdout)).to.include({ email, role: 'manager' });
        const user = await server.app.services.models.User.findOne({ where: { email } });
        expect(await Bcrypt.compare('correct horse battery', user!.password_hash)).to.be.true();
    });

    it('takes the whole of stdin as the password, one final newline removed, and refuses an empty one', async () => {

        const family = await familyWithKey(server);
        const email = `whole-${family.familyLongId}@example.com`.toLowerCase();
        const created = await runCli(['user', 'create', '--email', email, '--password-stdin', '--family', family.familyLongId, '--role', 'member'], env, ' two words, then \r\n');
        expect(created.exitCode).to.equal(0);
        const user = await server.app.services.models.User.findOne({ where: { email } });
        expect(await Bcrypt.compare(' two words, then ', user!.password_hash)).to.be.true();

        for (const input of ['', '\n']) {
            const empty = await runCli(['user', 'create', '--email', `empty-${email}`, '--password-stdin', '--family', family.familyLongId, '--role', 'member'], env, input);
            expect(empty.exitCode).to.equal(1);
            expect(empty.stdout).to.equal('');
            expect(empty.stderr).to.equal('error: A password is 10 to 72 characters (72 bytes in UTF-8: fewer characters outside ASCII).\n');
        }

        const notText = await runCli(['user', 'create', '--email', `empty-${email}`, '--password-stdin', '--family', family.familyLongId, '--role', 'member'], env, Buffer.from([0x70, 0x61, 0x73, 0x73, 0xff, 0xfe, 0x77, 0x6f, 0x72, 0x64, 0x21, 0x21]));
        expect(notText.exitCode).to.equal(1);
        expect(notText.stderr).to.equal('error: standard input is not UTF-8 text: give the password as UTF-8\n');

        expect(await server.app.services.models.User.count({ where: { email: `empty-${email}` } })).to.equal(0);
    });

    it('asks for the password twice at a terminal with --password-stdin, showing none of it, and creates nothing when the two differ', async () => {

        const family = await familyWithKey(server);
        const email = `typed-${family.familyLongId}@example.com`.toLowerCase();
        const args = ['user', 'create', '--email', email, '--password-stdin', '--family', family.familyLongId, '--role', 'member'];

        const differing = await runCliAtTerminal(args, env, [{ prompt: 'Password: ', typed: 'correct horse battery\r' }, { prompt: 'Password again: ', typed: 'correct horse batter\r' }]);
        expect(differing.exitCode).to.equal(1);
        expect(differing.stdout).to.include('error: the two passwords differ: nothing was created');
        expect(await server.app.services.models.User.count({ where: { email } })).to.equal(0);

        const interrupted = await runCliAtTerminal(args, env, [{ prompt: 'Password: ', typed: 'correct\u0003' }]);
        expect(interrupted.exitCode).to.equal(1);
        expect(interrupted.stdout).to.include('error: no password was typed: nothing was created');

        const typed = await runCliAtTerminal(args, env, [{ prompt: 'Password: ', typed: 'correct horse battery\r' }, { prompt: 'Password again: ', typed: 'correct horse battery\r' }]);
        expect(typed.exitCode).to.equal(0);
        expect(typed.stdout).to.include(`Created member ${email}`);
        expect(typed.stdout).to.not.include('horse');
        const user = await server.app.services.models.User.findOne({ where: { email } });
        expect(await Bcrypt.compare('correct horse battery', user!.password_hash)).to.be.true();
    });

    it('warns on stderr that a password on the command line is visible to other users, stdout still one JSON object', async () => {

        const family = await familyWithKey(server);
        const email = `visible-${family.familyLongId}@example.com`.toLowerCase();
        const outcome = await runCli(['user', 'create', '--email', email, '--password', 'correct horse battery', '--family', family.familyLongId, '--role', 'member', '--json'], env);

        expect(outcome.exitCode).to.equal(0);
        expect(outcome.stderr).to.equal('warning: a password given with --password is visible to other users of this machine (ps) and stays in shell history; use --password-stdin\n');
        expect(JSON.parse(outcome.stdout)).to.include({ email });
    });

    it('refuses a password of white space only, however long', async () => {

        const family = await familyWithKey(server);
        const email = `blank-${family.familyLongId}@example.com`;
        const outcome = await runCli(['user', 'create', '--email', email, '--password-stdin', '--family', family.familyLongId, '--role', 'manager', '--json'], env, ' '.repeat(12));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stdout).to.equal('');
        expect(outcome.stderr).to.equal('error: A password cannot be only white space.\n');
        expect(await server.app.services.models.User.count({ where: { email } })).to.equal(0);
    });

    it('creates a super-admin without a family', async () => {

        const admin = await runCliJson(['user', 'create', '--email', `admin-${Date.now()}@example.com`, '--password', 'operators only!', '--role', 'super-admin'], env);

        expect(admin).to.include({ family_long_id: null, role: 'super-admin' });
    });

    it('refuses write operations for a key that predates write scopes', async () => {

        const family = await familyWithKey(server);
        const outcome = await runCli(['key', 'create', '--family', family.familyLongId, '--name', 'Imported', '--resources', 'persons', '--legacy', '--operations', 'read,create'], env);

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stdout).to.equal('');
        expect(outcome.stderr).to.include('predates write scopes and can never gain create');

        const legacy = await runCliJson(['key', 'create', '--family', family.familyLongId, '--name', 'Imported', '--resources', 'persons', '--legacy'], env);
        expect(legacy).to.include({ predates_write_scopes: true, operations: ['read', 'search', 'sort', 'filter'] });
    });

    it('does its work when stdout is closed, and says its output is lost', async () => {

        const family = await familyWithKey(server);
        const outcome = await runCliWithStdoutClosed(['key', 'create', '--family', family.familyLongId, '--name', 'Piped away', '--resources', 'persons', '--json'], env);

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.equal('error: stdout was closed before the output was written: the command did its work, but what it printed is lost\n');
        expect(await server.app.services.models.ApiKey.count({ where: { family_long_id: family.familyLongId, name: 'Piped away' } })).to.equal(1);
    });

    it('says a key was revoked already, leaving when it was: exit 0, changing nothing', async () => {

        const family = await familyWithKey(server);
        const first = await runCliJson(['key', 'revoke', family.keyId], env);
        expect(first).to.include({ id: family.keyId, changed: true });

        const again = await runCliJson(['key', 'revoke', family.key], env);
        expect(again).to.equal({ ...first, changed: false });

        const told = await runCli(['key', 'revoke', family.keyId], env);
        expect(told.exitCode).to.equal(0);
        expect(told.stdout).to.equal(`API key ${family.keyId} "test key" of family ${family.familyLongId} was already revoked at ${first.revoked_at}: nothing changed\n`);
        expect((await server.app.services.models.ApiKey.findByPk(family.keyId))!.revoked_at!.toISOString()).to.equal(first.revoked_at);
    });

    it('answers an unknown id with not found', async () => {

        const outcome = await runCli(['key', 'revoke', 'key_doesNotExist'], env);

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.equal('error: No API key key_doesNotExist.\n');
    });

    it('revokes a key given whole (one found leaked), and never prints a key it does not know', async () => {

        const family = await familyWithKey(server);
        const revoked = await runCliJson(['key', 'revoke', family.key], env);
        expect(revoked.id).to.equal(family.keyId);
        expect((await listPersons(family.key)).statusCode).to.equal(401);

        const unknown = family.key.slice(0, -6) + 'AAAAAA';
        for (const given of [unknown, family.key.slice(0, 12)]) {
            const outcome = await runCli(['key', 'revoke', given], env);
            expect(outcome.exitCode).to.equal(1);
            expect(outcome.stderr).to.equal('error: No API key of this service is the key given (frk_…, not shown); give the key\'s id (key_…) or the whole key.\n');
        }
    });

    describe('command line', () => {

        // Usage errors are found before any configuration is read: no database needed.
        const bare = cliEnvironment({});

        it('rejects an unknown flag as a usage error', async () => {

            const outcome = await runCli(['family', 'create', '--name', 'X', '--plan', 'family', '--colour', 'red'], bare);

            expect(outcome.exitCode).to.equal(2);
            expect(outcome.stdout).to.equal('');
            expect(outcome.stderr).to.include('Unknown option \'--colour\'');
            expect(outcome.stderr).to.include('usage: family-records family create --name NAME --plan');
        });

        it('rejects a missing flag, a missing id and an extra argument as usage errors', async () => {

            const missingFlag = await runCli(['key', 'create', '--family', 'fam_x', '--name', 'n'], bare);
            expect(missingFlag.exitCode).to.equal(2);
            expect(missingFlag.stderr).to.startWith('error: missing --resources');

            const missingId = await runCli(['key', 'revoke'], bare);
            expect(missingId.exitCode).to.equal(2);
            expect(missingId.stderr).to.startWith('error: missing ID');

            const extra = await runCli(['family', 'unsuspend', 'fam_a', 'fam_b'], bare);
            expect(extra.exitCode).to.equal(2);
            expect(extra.stderr).to.startWith('error: unexpected argument "fam_b"');
        });

        it('takes a password from --password or from --password-stdin, never both, and needs one of them', async () => {

            const create = ['user', 'create', '--email', 'a@example.com', '--role', 'super-admin'];
            const both = await runCli([...create, '--password', 'correct horse battery', '--password-stdin'], bare, 'correct horse battery');
            expect(both.exitCode).to.equal(2);
            expect(both.stdout).to.equal('');
            expect(both.stderr).to.startWith('error: --password and --password-stdin cannot be used together (usage: family-records user create');

            const neither = await runCli(create, bare);
            expect(neither.exitCode).to.equal(2);
            expect(neither.stderr).to.startWith('error: missing --password or --password-stdin (usage: family-records user create');
        });

        it('rejects an unknown command, and no command at all', async () => {

            for (const args of [['frobnicate'], ['family', 'delete', 'fam_x'], []]) {
                const outcome = await runCli(args, bare);
                expect(outcome.exitCode).to.equal(2);
                expect(outcome.stdout).to.equal('');
                expect(outcome.stderr).to.startWith('error: ');
            }
        });

        it('says in one line that the output is lost when stdout is closed, instead of crashing with a stack trace', async () => {

            const outcome = await runCliWithStdoutClosed(['--help'], bare);

            expect(outcome.exitCode).to.equal(1);
            expect(outcome.stderr).to.equal('error: stdout was closed before the output was written: the command did its work, but what it printed is lost\n');
        });

        it('lists every command and the environment in --help', async () => {

            const outcome = await runCli(['--help'], bare);

            expect(outcome.exitCode).to.equal(0);
            for (const text of ['serve', 'migrate', 'demo', 'family create', 'family suspend', 'user create', 'api enable', 'key create', 'key revoke', 'webhook create', 'policy check']) {
                expect(outcome.stdout).to.include(`  ${text}`);
            }

            for (const variable of ['PORT', 'HOST', 'DATABASE_URL', 'REDIS_URL', 'POLICIES_DIR', 'GATEWAY_CONFIG', 'PUBLIC_BASE_URL', 'TRUSTED_PROXIES', 'DATA_DIR', 'FILES_DIR', 'SECRET_KEY', 'REDIS_PREFIX', 'PDF_FALLBACK_FONTS', 'WATCH_POLICIES']) {
                expect(outcome.stdout).to.include(variable);
            }
        });

        it('explains a command group with <group> --help and help <group>', async () => {

            const flag = await runCli(['key', '--help'], bare);
            expect(flag.exitCode).to.equal(0);
            expect(flag.stdout).to.include('--legacy marks a key imported from before write scopes');

            const word = await runCli(['help', 'key'], bare);
            expect(word.stdout).to.equal(flag.stdout);
        });
    });

    describe('migrate', () => {

        it('brings the database up to date', async () => {

            const outcome = await runCli(['migrate'], env);

            expect(outcome.exitCode).to.equal(0);
            expect(outcome.stdout).to.startWith('Database is up to date: ');
            expect(await runCliJson(['migrate'], env)).to.include({ up_to_date: true });
        });
    });
});
