import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { projectRoot } from '../../../lib/config';
import { keptLog } from '../../helpers/kept-log';
import { editPolicyFile } from '../../helpers/policy-files';
import { copyPolicies, familyWithKey, scratchDirectory, testServer, type FamilyFixture } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const standardPolicy = '"key";q=600;w=60, "family";q=1200;w=60';
const highPolicy = '"key";q=3000;w=60, "family";q=6000;w=60';

/** Resolves once `condition()` holds; fails the test after `timeoutMs`. */
async function eventually(condition: () => boolean, timeoutMs = 5000): Promise<void> {

    const until = Date.now() + timeoutMs;
    while (!condition()) {
        expect(Date.now()).to.be.below(until);
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

describe('gateway.yaml reloads like the policy files', () => {

    let server: Server;
    let family: FamilyFixture;
    let dir: string;
    const kept = keptLog();
    const lines = () => kept.lines.filter((line) => line.startsWith('[gateway,'));

    const policyHeader = async () => (await family.inject('GET', '/api/v1/persons')).headers['ratelimit-policy'];

    /** Rewrites part of the server's gateway.yaml, then sends SIGHUP: the store reloads at once, without waiting for the watch. */
    const editAndSighup = (from: string, to: string) => {

        editPolicyFile(dir, 'gateway.yaml', from, to);
        process.emit('SIGHUP', 'SIGHUP');
    };

    before(async () => {

        dir = scratchDirectory();
        Fs.copyFileSync(Path.join(projectRoot, 'gateway', 'gateway.yaml'), Path.join(dir, 'gateway.yaml'));
        server = await testServer({ env: { GATEWAY_CONFIG: Path.join(dir, 'gateway.yaml'), WATCH_POLICIES: 'true' }, log: kept.log });
        family = await familyWithKey(server);
    });

    after(() => server.stop());

    it('applies a valid edit to the next request: a route group\'s own rate-limit preset', async () => {

        expect(await policyHeader()).to.equal(standardPolicy);

        editAndSighup('- name: rate-limit\n', '- name: rate-limit\n        config: { preset: high }\n');
        expect(await policyHeader()).to.equal(highPolicy);
        expect(lines()).to.include(`[gateway,info] ${Path.join(dir, 'gateway.yaml')} reloaded`);
    });

    it('refuses an invalid edit, logging why, and keeps the last good one in force', async () => {

        kept.lines.length = 0;
        editAndSighup('config: { preset: high }', 'config: { preset: highest }');

        expect(await policyHeader()).to.equal(highPolicy);
        expect(lines()).to.equal([
            `[gateway,error] ${Path.join(dir, 'gateway.yaml')} not reloaded, the last good one stays in force:\n` +
            `${Path.join(dir, 'gateway.yaml')}: route_groups[0].policies[2].config.preset: "highest" is not a preset in rate-limits.yaml`
        ]);
        editAndSighup('config: { preset: highest }', 'config: { preset: high }');
    });

    it('refuses an edit only a restart could apply: the routes are bound to their groups', async () => {

        kept.lines.length = 0;
        editAndSighup('paths: [/api/v1]', 'paths: [/api/v2]');

        expect(await policyHeader()).to.equal(highPolicy);
        expect(lines()).to.have.length(1);
        expect(lines()[0]).to.endWith(`${Path.join(dir, 'gateway.yaml')}: route_groups[0]: its name, paths, public_paths, plugins, auth scheme, version name and error_format change only with a restart`);
        editAndSighup('paths: [/api/v2]', 'paths: [/api/v1]');
    });

    it('reloads on an edit of the file, without a signal', async () => {

        editPolicyFile(dir, 'gateway.yaml', 'config: { preset: high }', 'config: { preset: standard }');
        await eventually(() => (server.plugins.gateway.config().routeGroups[0].policies[2].config as { preset?: string }).preset === 'standard');
        expect(await policyHeader()).to.equal(standardPolicy);
    });
});

describe('A policy reload keeps what the routes and gateway.yaml refer to', () => {

    let server: Server;
    let policiesDir: string;
    const kept = keptLog();

    before(async () => {

        policiesDir = copyPolicies();
        editPolicyFile(policiesDir, 'rate-limits.yaml', 'presets:\n', 'presets:\n  - name: gateway-only\n    per_key: { limit: 10, window_seconds: 60 }\n    per_family: { limit: 20, window_seconds: 60 }\n');
        const dir = scratchDirectory();
        Fs.copyFileSync(Path.join(projectRoot, 'gateway', 'gateway.yaml'), Path.join(dir, 'gateway.yaml'));
        editPolicyFile(dir, 'gateway.yaml', '- name: rate-limit\n', '- name: rate-limit\n        config: { preset: gateway-only }\n');
        server = await testServer({ policiesDir, env: { GATEWAY_CONFIG: Path.join(dir, 'gateway.yaml') }, log: kept.log });
    });

    after(() => server.stop());

    it('refuses a scopes.yaml without an operation the routes declare', () => {

        kept.lines.length = 0;
        editPolicyFile(policiesDir, 'scopes.yaml', '  - name: delete\n', '  - name: remove\n');
        expect(server.app.services.policyStore.reload()).to.be.false();
        expect(kept.lines[0]).to.include(`${Path.join(policiesDir, 'scopes.yaml')}: operations: DELETE /api/v1/`);
        editPolicyFile(policiesDir, 'scopes.yaml', '  - name: remove\n', '  - name: delete\n');
    });

    it('refuses a rate-limits.yaml without a preset gateway.yaml names', () => {

        kept.lines.length = 0;
        editPolicyFile(policiesDir, 'rate-limits.yaml', 'name: gateway-only', 'name: gateway-alone');
        expect(server.app.services.policyStore.reload()).to.be.false();
        expect(kept.lines[0]).to.endWith('gateway.yaml: route_groups[0].policies[2].config.preset: "gateway-only" is not a preset in rate-limits.yaml');

        editPolicyFile(policiesDir, 'rate-limits.yaml', 'name: gateway-alone', 'name: gateway-only');
        expect(server.app.services.policyStore.reload()).to.be.true();
    });
});
