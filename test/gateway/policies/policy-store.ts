import { EventEmitter } from 'events';
import Fs from 'fs';
import Os from 'os';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { policyFiles } from '../../../lib/deployment';
import { PolicyError } from '../../../gateway/policies/data-file';
import { PolicyStore } from '../../../gateway/policies/policy-store';
import { editPolicyFile, loadGateway, loadServicePolicies, policyFileNames, policyLoadError } from '../../helpers/policy-files';

export const lab = Lab.script();
const { describe, it, after, afterEach } = lab;

const FAMILY_API_POLICIES = ['plan-gate', 'family-suspension', 'rate-limit', 'resource-scope', 'operation-scope'];
const KNOWN_POLICIES = [...FAMILY_API_POLICIES, 'account-state', 'token-scope'];

const tempDirs: string[] = [];

after(() => {

    for (const dir of tempDirs) {
        Fs.rmSync(dir, { recursive: true, force: true });
    }
});

/** A temp directory holding copies of the shipped files, for one test to change. */
function copyOfShipped(files: readonly string[] = policyFileNames, from = Path.join(projectRoot, 'policies')): string {

    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'family-records-policies-'));
    tempDirs.push(dir);
    for (const file of files) {
        Fs.copyFileSync(Path.join(from, file), Path.join(dir, file));
    }

    return dir;
}

/** Resolves with the event's arguments; rejects after `timeoutMs` so a missing event fails the test clearly. */
function nextEvent(emitter: EventEmitter, event: string, timeoutMs = 1500): Promise<unknown[]> {

    return new Promise((resolve, reject) => {

        const timer = setTimeout(() => {

            emitter.removeListener(event, onEvent);
            reject(new Error(`no '${event}' event within ${timeoutMs} ms`));
        }, timeoutMs);

        const onEvent = (...args: unknown[]) => {

            clearTimeout(timer);
            resolve(args);
        };

        emitter.once(event, onEvent);
    });
}

/** Records what a PolicyStore logs, and emits each entry as a 'logged' event. */
class RecordingLog extends EventEmitter {

    readonly entries: { tags: string[]; message: string }[] = [];

    readonly log = (tags: string[], message: string): void => {

        this.entries.push({ tags, message });
        this.emit('logged', tags, message);
    };
}

describe('loadServicePolicies()', () => {

    it('loads the shipped policy files', () => {

        const policies = loadServicePolicies(Path.join(projectRoot, 'policies'));

        expect([...policies.plans.keys()]).to.equal(['lite', 'family', 'max', 'lifetime']);
        expect(policies.plans.get('lite')).to.equal({ name: 'lite', label: 'Lite', api_access: false, upgrade_to: 'family', rate_limit: 'standard', max_upload_bytes: 0, storage_quota_bytes: 100 * 2 ** 20 });
        expect(policies.rateLimits.get('standard')).to.equal({ name: 'standard', per_key: { limit: 600, window_seconds: 60 }, per_family: { limit: 1200, window_seconds: 60 } });
        expect(policies.scopes.resources).to.include(['trees', 'history']);
        expect(policies.scopes.operations.find((operation) => operation.name === 'read')!.write).to.be.false();
        expect(policies.scopes.operations.find((operation) => operation.name === 'delete')!.write).to.be.true();
        expect(policies.scopes.query_operations[3]).to.equal({ parameter_prefix: 'filter[', operation: 'filter' });
        expect(policies.scopes).to.not.include('_format_version');
        expect(policies.loadedAt).to.be.a.date();
    });

    it('names the file, line and column of a YAML syntax error', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'plans.yaml', 'label: Family', 'label: Family: Plus');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'plans.yaml')}: line 20, column 12: Nested mappings are not allowed in compact mappings`);
    });

    it('names the file relative to the working directory when it lies inside it', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'plans.yaml', 'label: Family', 'label: Family: Plus');
        const cwd = process.cwd();
        process.chdir(Path.dirname(dir));
        try {
            expect(policyLoadError(dir).message).to.startWith(`${Path.join(Path.basename(dir), 'plans.yaml')}: line 20`);
        }
        finally {
            process.chdir(cwd);
        }
    });

    it('rejects a value of the wrong type', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'plans.yaml', 'api_access: false', 'api_access: sometimes');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'plans.yaml')}: plans[0].api_access: must be a boolean`);
    });

    it('rejects an unknown key, so a typo is not ignored', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'plans.yaml', 'label: Max', 'lable: Max');

        const error = policyLoadError(dir);
        expect(error.message).to.include(`${Path.join(dir, 'plans.yaml')}: plans[2].lable: is not allowed`);
        expect(error.message).to.include(`${Path.join(dir, 'plans.yaml')}: plans[2].label: is required`);
        expect(error.problems).to.have.length(2);
    });

    it('names a missing file', () => {

        const dir = copyOfShipped();
        Fs.rmSync(Path.join(dir, 'scopes.yaml'));

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'scopes.yaml')}: file not found`);
    });

    it('says a file is empty, rather than what type it is not', () => {

        for (const text of ['', '\n', '# rate limits: nothing yet\n']) {
            const dir = copyOfShipped();
            Fs.writeFileSync(Path.join(dir, 'rate-limits.yaml'), text);

            expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'rate-limits.yaml')}: the file is empty (a policy file starts with _format_version: "1.0")`);
        }
    });

    it('rejects a plan whose rate limit is not a preset', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'plans.yaml', 'label: Family\n    api_access: true\n    rate_limit: standard', 'label: Family\n    api_access: true\n    rate_limit: standrd');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'plans.yaml')}: plans[1].rate_limit: "standrd" is not a preset in rate-limits.yaml`);
    });

    it('rejects an upgrade to a plan without API access', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'plans.yaml', 'upgrade_to: family', 'upgrade_to: lite');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'plans.yaml')}: plans[0].upgrade_to: "lite" is not a plan with api_access: true`);
    });

    it('rejects plans.yaml without a plan families can be on', () => {

        const dir = copyOfShipped();
        const plans = Path.join(dir, 'plans.yaml');
        const text = Fs.readFileSync(plans, 'utf8');
        Fs.writeFileSync(plans, text.slice(0, text.indexOf('  - name: max')) + text.slice(text.indexOf('  - name: lifetime')));

        expect(policyLoadError(dir).message).to.equal(`${plans}: plans: must list every plan a family can be on; missing: max`);
    });

    it('rejects a plan no family can be on', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'plans.yaml', 'name: lifetime', 'name: lifetme');

        expect(policyLoadError(dir).message).to.equal([
            `${Path.join(dir, 'plans.yaml')}: plans[3].name: "lifetme" is not a plan a family can be on; those are [lite, family, max, lifetime]`,
            `${Path.join(dir, 'plans.yaml')}: plans: must list every plan a family can be on; missing: lifetime`
        ].join('\n'));
    });

    it('rejects a query parameter mapped to an undeclared operation', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'scopes.yaml', 'operation: filter', 'operation: filtre');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'scopes.yaml')}: query_operations[3].operation: "filtre" is not an operation declared in operations`);
    });

    it('rejects a write operation among the legacy key operations', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'scopes.yaml', 'legacy_key_operations: [read, search, sort, filter]', 'legacy_key_operations: [read, create]');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'scopes.yaml')}: legacy_key_operations[1]: "create" is not a declared read-only operation (legacy keys can never be widened to writes)`);
    });

    it('rejects a write operation among the default key operations', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'scopes.yaml', 'default_key_operations: [read, search, sort, filter]', 'default_key_operations: [read, delete]');

        expect(policyLoadError(dir).message).to.include('default_key_operations[1]: "delete" is not a declared read-only operation');
    });

    it('rejects a name used twice in one list', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'rate-limits.yaml', 'name: high', 'name: standard');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'rate-limits.yaml')}: presets[1]: the name "standard" is already used earlier in this list`);
    });

    it('rejects a _format_version other than "1.0"', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'scopes.yaml', '_format_version: "1.0"', '_format_version: 1.0');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'scopes.yaml')}: _format_version: must be "1.0" (a quoted string), not 1`);
    });

    it('rejects a file without _format_version', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'rate-limits.yaml', '_format_version: "1.0"', '');

        expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'rate-limits.yaml')}: _format_version: is required`);
    });

    describe('environment substitution', () => {

        const variable = 'FAMILY_RECORDS_TEST_PER_KEY_LIMIT';

        afterEach(() => {

            delete process.env[variable];
        });

        it('uses the default when the variable is not set', () => {

            const dir = copyOfShipped();
            editPolicyFile(dir, 'rate-limits.yaml', 'limit: 600', `limit: \${${variable}:-700}`);

            expect(loadServicePolicies(dir).rateLimits.get('standard')!.per_key.limit).to.equal(700);
        });

        it('uses the variable, converted to the type the schema declares', () => {

            const dir = copyOfShipped();
            editPolicyFile(dir, 'rate-limits.yaml', 'limit: 600', `limit: \${${variable}:-700}`);
            process.env[variable] = '900';

            expect(loadServicePolicies(dir).rateLimits.get('standard')!.per_key.limit).to.equal(900);
        });

        it('validates the substituted value', () => {

            const dir = copyOfShipped();
            editPolicyFile(dir, 'rate-limits.yaml', 'limit: 600', `limit: \${${variable}}`);
            process.env[variable] = 'lots';

            expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'rate-limits.yaml')}: presets[0].per_key.limit: must be a number`);
        });

        it('names a variable that is not set and has no default', () => {

            const dir = copyOfShipped();
            editPolicyFile(dir, 'rate-limits.yaml', 'limit: 600', `limit: \${${variable}}`);

            expect(policyLoadError(dir).message).to.equal(`${Path.join(dir, 'rate-limits.yaml')}: presets[0].per_key.limit: environment variable ${variable} is not set (write \${${variable}:-default} to give a default)`);
        });
    });
});

describe('loadGateway()', () => {

    const gatewayDir = Path.join(projectRoot, 'gateway');

    it('loads the shipped gateway.yaml, filling in the defaults of the policies and the auth scheme', () => {

        const { routeGroups } = loadGateway(Path.join(gatewayDir, 'gateway.yaml'));

        expect(routeGroups.map((group) => group.name)).to.equal(['family-api', 'family-api-v2', 'messaging']);
        expect(routeGroups[1]).to.include({ paths: ['/api/v2'], version: { name: 'v2', error_format: 'problem', status: 'current' } });
        expect(routeGroups[0]).to.include({ name: 'family-api', paths: ['/api/v1'], version: { name: 'v1', error_format: 'boom', status: 'current' }, auth: { scheme: 'api-key', config: { key_cache: { max_entries: 10_000, max_age_minutes: 10 } } } });
        expect(routeGroups[0].policies.map((policy) => policy.name)).to.equal(FAMILY_API_POLICIES);
        expect(routeGroups[2]).to.include({ name: 'messaging', paths: ['/messaging/v1'], auth: { scheme: 'device-token', config: { token_cache: { max_entries: 10_000, max_age_minutes: 10 } } } });
        expect(routeGroups[2].policies.map((policy) => policy.name)).to.equal(['account-state', 'rate-limit', 'token-scope']);
        expect(routeGroups[0].policies[0]).to.equal({ name: 'plan-gate', enabled: true, config: {} });
    });

    it('rejects a policy name the gateway does not know', () => {

        const dir = copyOfShipped(['gateway.yaml'], gatewayDir);
        editPolicyFile(dir, 'gateway.yaml', '- name: rate-limit', '- name: rate-limt');

        expect(() => loadGateway(Path.join(dir, 'gateway.yaml'))).to.throw(PolicyError,
            `${Path.join(dir, 'gateway.yaml')}: route_groups[0].policies[2].name: "rate-limt" is not a known policy (known: [${KNOWN_POLICIES.join(', ')}])`);
    });

    it('rejects an auth scheme the gateway does not implement, so policy check catches it before start-up does', () => {

        const dir = copyOfShipped(['gateway.yaml'], gatewayDir);
        editPolicyFile(dir, 'gateway.yaml', 'scheme: api-key', 'scheme: apikey');

        expect(() => loadGateway(Path.join(dir, 'gateway.yaml'))).to.throw(PolicyError,
            `${Path.join(dir, 'gateway.yaml')}: route_groups[0].auth.scheme: "apikey" is not a known auth scheme (known: api-key, device-token)`);
    });

    it('rejects a path that does not start with /', () => {

        const dir = copyOfShipped(['gateway.yaml'], gatewayDir);
        editPolicyFile(dir, 'gateway.yaml', 'paths: [/api/v1]', 'paths: [api/v1]');

        expect(() => loadGateway(Path.join(dir, 'gateway.yaml'))).to.throw(PolicyError,
            `${Path.join(dir, 'gateway.yaml')}: route_groups[0].paths[0]: "api/v1" must start with "/"`);
    });

    it('rejects a setting no policy reads, rather than ignoring it', () => {

        const dir = copyOfShipped(['gateway.yaml'], gatewayDir);
        editPolicyFile(dir, 'gateway.yaml', '- name: rate-limit', '- name: rate-limit\n        config: { per_minute: 5 }');

        expect(() => loadGateway(Path.join(dir, 'gateway.yaml'))).to.throw(PolicyError,
            `${Path.join(dir, 'gateway.yaml')}: route_groups[0].policies[2].config.per_minute: is not allowed`);
    });
});

describe('PolicyStore', () => {

    const stores: PolicyStore[] = [];

    const open = (dir: string, log: RecordingLog): PolicyStore => {

        const store = PolicyStore.open(dir, log.log, policyFiles);
        stores.push(store);
        return store;
    };

    afterEach(() => {

        stores.splice(0).forEach((store) => store.close());
    });

    it('refuses to open invalid policies', () => {

        const dir = copyOfShipped();
        editPolicyFile(dir, 'plans.yaml', 'upgrade_to: family', 'upgrade_to: lite');

        expect(() => PolicyStore.open(dir, () => {}, policyFiles)).to.throw(PolicyError, /plans\[0\]\.upgrade_to/);
    });

    it('reload() swaps in valid policies and reports it', async () => {

        const dir = copyOfShipped();
        const log = new RecordingLog();
        const store = open(dir, log);
        const reloaded = nextEvent(store, 'reloaded');
        editPolicyFile(dir, 'plans.yaml', 'label: Family', 'label: Family Plus');

        expect(store.reload()).to.be.true();
        expect(store.current().plans.get('family')!.label).to.equal('Family Plus');
        expect(log.entries).to.equal([{ tags: ['policy', 'info'], message: 'policies reloaded' }]);
        const [policies] = await reloaded;
        expect(policies).to.shallow.equal(store.current());
    });

    it('applies a good edit on disk without a restart', async () => {

        const dir = copyOfShipped();
        const store = open(dir, new RecordingLog());
        store.watch();
        const reloaded = nextEvent(store, 'reloaded');
        editPolicyFile(dir, 'plans.yaml', 'label: Family\n    api_access: true\n    rate_limit: standard', 'label: Family\n    api_access: true\n    rate_limit: high');

        const [policies] = await reloaded;
        expect(policies).to.shallow.equal(store.current());
        expect(store.current().plans.get('family')!.rate_limit).to.equal('high');
    });

    it('keeps watching through editors that save by renaming a new file over the old', async () => {

        const dir = copyOfShipped();
        const store = open(dir, new RecordingLog());
        store.watch();
        const saveByRename = (label: string) => {

            const text = Fs.readFileSync(Path.join(dir, 'plans.yaml'), 'utf8').replace(/label: Max.*/, `label: ${label}`);
            Fs.writeFileSync(Path.join(dir, '.plans.yaml.swp'), text);
            Fs.renameSync(Path.join(dir, '.plans.yaml.swp'), Path.join(dir, 'plans.yaml'));
        };

        for (const label of ['Max One', 'Max Two']) {
            const reloaded = nextEvent(store, 'reloaded');
            saveByRename(label);
            await reloaded;
            expect(store.current().plans.get('max')!.label).to.equal(label);
        }
    });

    it('follows a policies directory that is a symlink switched to another directory', async () => {

        const release = (label: string) => {

            const dir = copyOfShipped();
            editPolicyFile(dir, 'plans.yaml', 'label: Max', `label: ${label}`);
            return dir;
        };

        const link = Path.join(copyOfShipped([]), 'current');
        Fs.symlinkSync(release('Max One'), link);
        const store = open(link, new RecordingLog());
        store.watch();

        const reloaded = nextEvent(store, 'reloaded', 3000);
        // As a deployment switches releases: a new symlink renamed over the old one.
        Fs.symlinkSync(release('Max Two'), `${link}.next`);
        Fs.renameSync(`${link}.next`, link);

        await reloaded;
        expect(store.current().plans.get('max')!.label).to.equal('Max Two');
    });

    it('follows a Kubernetes ConfigMap update (files are symlinks through a switched ..data)', async () => {

        const mount = copyOfShipped([]);
        const version = (name: string, label: string) => {

            const dir = Path.join(mount, name);
            Fs.cpSync(copyOfShipped(), dir, { recursive: true });
            editPolicyFile(dir, 'plans.yaml', 'label: Max', `label: ${label}`);
        };

        version('..v1', 'Max One');
        Fs.symlinkSync('..v1', Path.join(mount, '..data'));
        for (const file of policyFileNames) {
            Fs.symlinkSync(Path.join('..data', file), Path.join(mount, file));
        }

        const store = open(mount, new RecordingLog());
        store.watch();

        const reloaded = nextEvent(store, 'reloaded', 3000);
        version('..v2', 'Max Two');
        Fs.symlinkSync('..v2', Path.join(mount, '..data_tmp'));
        Fs.renameSync(Path.join(mount, '..data_tmp'), Path.join(mount, '..data'));

        await reloaded;
        expect(store.current().plans.get('max')!.label).to.equal('Max Two');
    });

    it('keeps following edits after the directory is deleted and created again', async () => {

        const dir = copyOfShipped();
        const log = new RecordingLog();
        const store = open(dir, log);
        store.watch();

        const replaced = copyOfShipped();
        editPolicyFile(replaced, 'plans.yaml', 'label: Max', 'label: Max One');
        Fs.rmSync(dir, { recursive: true });
        Fs.cpSync(replaced, dir, { recursive: true });
        await nextEvent(store, 'reloaded', 3000);
        expect(store.current().plans.get('max')!.label).to.equal('Max One');

        const reloaded = nextEvent(store, 'reloaded', 3000);
        editPolicyFile(dir, 'plans.yaml', 'label: Max One', 'label: Max Two');
        await reloaded;
        expect(store.current().plans.get('max')!.label).to.equal('Max Two');
    });

    it('reloads an edit once, and not at all for a file saved unchanged', async () => {

        const dir = copyOfShipped();
        const log = new RecordingLog();
        const store = open(dir, log);
        store.watch();

        editPolicyFile(dir, 'plans.yaml', 'label: Max', 'label: Max One');
        await nextEvent(store, 'reloaded', 3000);
        editPolicyFile(dir, 'plans.yaml', 'label: Max One', 'label: Max One');
        // Longer than a poll and the debounce: both the watch and the poll have reported by now.
        await new Promise((resolve) => setTimeout(resolve, 2500));

        expect(log.entries).to.equal([{ tags: ['policy', 'info'], message: 'policies reloaded' }]);
    });

    it('keeps the last good policies on an invalid edit and logs why', async () => {

        const dir = copyOfShipped();
        const log = new RecordingLog();
        const store = open(dir, log);
        const lastGood = store.current();
        store.watch();
        const logged = nextEvent(log, 'logged');
        editPolicyFile(dir, 'plans.yaml', 'label: Family\n    api_access: true\n    rate_limit: standard', 'label: Family\n    api_access: true\n    rate_limit: standrd');

        const [tags, message] = await logged;
        expect(tags).to.equal(['policy', 'error']);
        expect(message).to.include(`${Path.join(dir, 'plans.yaml')}: plans[1].rate_limit: "standrd" is not a preset in rate-limits.yaml`);
        expect(store.current()).to.shallow.equal(lastGood);
        expect(store.reload()).to.be.false();
        expect(store.current()).to.shallow.equal(lastGood);
    });

    it('reloads on SIGHUP', () => {

        const dir = copyOfShipped();
        const store = open(dir, new RecordingLog());
        // Edited before watching, so only the signal can bring the change in.
        editPolicyFile(dir, 'plans.yaml', 'label: Lite', 'label: Lite Plus');
        store.watch();

        process.emit('SIGHUP', 'SIGHUP');
        expect(store.current().plans.get('lite')!.label).to.equal('Lite Plus');
    });

    it('close() stops watching the files and SIGHUP', async () => {

        const dir = copyOfShipped();
        const log = new RecordingLog();
        const sighupListeners = process.listenerCount('SIGHUP');
        const store = open(dir, log);
        const before = store.current();
        store.watch();
        expect(process.listenerCount('SIGHUP')).to.equal(sighupListeners + 1);
        store.close();
        expect(process.listenerCount('SIGHUP')).to.equal(sighupListeners);

        // No SIGHUP is emitted here: with no listener of the service's left, a library that re-raises signals for its
        // exit hooks (signal-exit, under tus-js-client) would end the test process. The listener count says enough.
        editPolicyFile(dir, 'plans.yaml', 'label: Lite', 'label: Lite Plus');
        // Longer than the reload debounce: a watcher still running would have reloaded by now.
        await new Promise((resolve) => setTimeout(resolve, 400));

        expect(store.current()).to.shallow.equal(before);
        expect(log.entries).to.equal([]);
    });
});
