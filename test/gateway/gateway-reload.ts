import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { projectRoot } from '../../lib/config';
import { keptLog } from '../helpers/kept-log';
import { editPolicyFile } from '../helpers/policy-files';
import { familyWithKey, scratchDirectory, testServer, type FamilyFixture } from '../helpers/server';

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
        expect(lines()[0]).to.endWith(`${Path.join(dir, 'gateway.yaml')}: route_groups[0]: its name, paths, public_paths and auth scheme change only with a restart`);
        editAndSighup('paths: [/api/v2]', 'paths: [/api/v1]');
    });

    it('reloads on an edit of the file, without a signal', async () => {

        editPolicyFile(dir, 'gateway.yaml', 'config: { preset: high }', 'config: { preset: standard }');
        await eventually(() => (server.plugins.gateway.config().routeGroups[0].policies[2].config as { preset?: string }).preset === 'standard');
        expect(await policyHeader()).to.equal(standardPolicy);
    });
});
