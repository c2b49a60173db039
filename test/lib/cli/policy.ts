import Fs from 'fs';
import Path from 'path';

import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';

import { projectRoot } from '../../../lib/config';
import { editedPolicies } from '../../helpers/policy-files';
import { copyPolicies, scratchDirectory } from '../../helpers/server';
import { cliEnvironment, cliTestTimeout, runCli, runCliJson } from './run';

export const lab = Lab.script();
const { describe, it } = lab;

/** A copy of the shipped gateway.yaml with `from` changed to `to`; its path. */
function editedGatewayConfig(from: string, to: string): string {

    const gatewayConfig = Path.join(copyPolicies(), 'gateway.yaml');
    const text = Fs.readFileSync(Path.join(projectRoot, 'gateway', 'gateway.yaml'), 'utf8');
    expect(text).to.include(from);
    Fs.writeFileSync(gatewayConfig, text.replace(from, to));
    return gatewayConfig;
}

describe('family-records policy check', { timeout: cliTestTimeout }, () => {

    // No DATA_DIR nor DATABASE_URL on purpose: the check never touches a database.

    it('accepts the shipped policies and gateway config', async () => {

        const outcome = await runCli(['policy', 'check'], cliEnvironment({}));

        expect(outcome.exitCode).to.equal(0);
        expect(outcome.stdout).to.include(`policies OK: ${Path.join(projectRoot, 'policies')} (plans: lite, family, max, lifetime)`);
        expect(outcome.stdout).to.include(`gateway OK: ${Path.join(projectRoot, 'gateway', 'gateway.yaml')}`);
        expect(outcome.stderr).to.equal('');

        expect(await runCliJson(['policy', 'check'], cliEnvironment({}))).to.equal({
            policies_dir: Path.join(projectRoot, 'policies'),
            plans: ['lite', 'family', 'max', 'lifetime'],
            gateway_config: Path.join(projectRoot, 'gateway', 'gateway.yaml'),
            route_groups: ['family-api', 'family-api-v2', 'messaging']
        });
    });

    it('fails naming the file and path of a broken policy', async () => {

        const policiesDir = copyPolicies();
        const plans = Path.join(policiesDir, 'plans.yaml');
        const text = Fs.readFileSync(plans, 'utf8');
        expect(text).to.include('rate_limit: high');
        Fs.writeFileSync(plans, text.replace('rate_limit: high', 'rate_limit: turbo'));

        const outcome = await runCli(['policy', 'check'], cliEnvironment({ POLICIES_DIR: policiesDir }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stdout).to.equal('');
        expect(outcome.stderr).to.startWith(`error: ${plans}: plans[2].rate_limit: `);
    });

    it('fails on a rate-limit window longer than a day, as start-up would', async () => {

        const policiesDir = editedPolicies('rate-limits.yaml', 'limit: 1200\n      window_seconds: 60', 'limit: 1200\n      window_seconds: 1000000000000');

        const outcome = await runCli(['policy', 'check'], cliEnvironment({ POLICIES_DIR: policiesDir }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stdout).to.equal('');
        expect(outcome.stderr).to.equal(`error: ${Path.join(policiesDir, 'rate-limits.yaml')}: presets[0].per_family.window_seconds: must be less than or equal to 86400\n`);
    });

    it('fails on a gateway config naming an unknown policy', async () => {

        const gatewayConfig = editedGatewayConfig('name: rate-limit', 'name: rate-limiter');

        const outcome = await runCli(['policy', 'check'], cliEnvironment({ GATEWAY_CONFIG: gatewayConfig }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.startWith(`error: ${gatewayConfig}: `);
        expect(outcome.stderr).to.include('rate-limiter');
    });

    it('fails on a gateway config naming an auth scheme the gateway does not implement, as start-up would', async () => {

        const gatewayConfig = editedGatewayConfig('scheme: api-key', 'scheme: apikey');

        const outcome = await runCli(['policy', 'check'], cliEnvironment({ GATEWAY_CONFIG: gatewayConfig }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.equal(`error: ${gatewayConfig}: route_groups[0].auth.scheme: "apikey" is not a known auth scheme (known: api-key, device-token)\n`);
    });
});

describe('family-records policy check, against the routes as start-up checks them', { timeout: cliTestTimeout }, () => {

    it('passes a route group renamed: the routes of the plugins it names use its new name', async () => {

        const gatewayConfig = editedGatewayConfig('name: family-api', 'name: records-api');

        const outcome = await runCli(['policy', 'check', '--json'], cliEnvironment({ GATEWAY_CONFIG: gatewayConfig }));

        expect(outcome.stderr).to.equal('');
        expect(outcome.exitCode).to.equal(0);
        expect(JSON.parse(outcome.stdout).route_groups).to.equal(['records-api', 'family-api-v2', 'messaging']);
    });

    it('fails on a route group naming a plugin the service does not have, as start-up would', async () => {

        const gatewayConfig = editedGatewayConfig('plugins: [records, files, stream, docs]', 'plugins: [records, ledger]');

        const outcome = await runCli(['policy', 'check'], cliEnvironment({ GATEWAY_CONFIG: gatewayConfig }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.equal(`error: ${gatewayConfig}: the service would not start with it: gateway.yaml: route group "family-api" names unknown plugins ledger (known: records, files, stream, docs, messaging)\n`);
    });

    it('fails on a public path removed, which would leave the API reference under the group\'s auth', async () => {

        const gatewayConfig = editedGatewayConfig('public_paths: [/api/v1/openapi.json]', 'public_paths: []');

        const outcome = await runCli(['policy', 'check'], cliEnvironment({ GATEWAY_CONFIG: gatewayConfig }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stderr).to.startWith(`error: ${gatewayConfig}: the service would not start with it: Gateway configuration: GET /api/v1/openapi.json lies under route group "family-api"`);
    });
});

describe('family-records policy check: every cross-reference, named by file and path', { timeout: cliTestTimeout }, () => {

    /** What policy check says about `policiesDir` (and gateway.yaml `gatewayConfig`): it must fail. */
    async function refusal(env: Record<string, string>): Promise<string> {

        const outcome = await runCli(['policy', 'check'], cliEnvironment(env));
        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stdout).to.equal('');
        return outcome.stderr;
    }

    it('refuses a scopes.yaml resource the records API does not serve', async () => {

        const policiesDir = editedPolicies('scopes.yaml', '  - persons\n', '  - people\n');
        expect(await refusal({ POLICIES_DIR: policiesDir })).to.startWith(`error: ${Path.join(policiesDir, 'scopes.yaml')}: resources[1]: "people" is not a resource of the records API; those are [trees, persons, `);
    });

    it('refuses a scopes.yaml that leaves out a resource the records API serves', async () => {

        const policiesDir = editedPolicies('scopes.yaml', '  - history\n', '');
        expect(await refusal({ POLICIES_DIR: policiesDir })).to.equal(`error: ${Path.join(policiesDir, 'scopes.yaml')}: resources: must list every resource of the records API; missing: history\n`);
    });

    it('refuses a renamed aggregate_resource, which would answer 403 to /api/v1/all and the change stream', async () => {

        const policiesDir = editedPolicies('scopes.yaml', 'aggregate_resource: all', 'aggregate_resource: everything');
        expect(await refusal({ POLICIES_DIR: policiesDir })).to.equal(`error: ${Path.join(policiesDir, 'scopes.yaml')}: aggregate_resource: "everything" is not the aggregate the records API serves, "all"\n`);
    });

    it('refuses a scopes.yaml without an operation the routes declare', async () => {

        const policiesDir = editedPolicies('scopes.yaml', '  - name: delete\n', '  - name: remove\n');
        const stderr = await refusal({ POLICIES_DIR: policiesDir });
        expect(stderr).to.startWith(`error: ${Path.join(policiesDir, 'scopes.yaml')}: operations: DELETE /api/v1/`);
        expect(stderr).to.include('declares operation "delete", which is not declared here');
    });

    it('refuses a route group\'s rate-limit preset that rate-limits.yaml does not declare', async () => {

        const gatewayConfig = editedGatewayConfig('- name: rate-limit\n', '- name: rate-limit\n        config: { preset: turbo }\n');
        expect(await refusal({ GATEWAY_CONFIG: gatewayConfig })).to.equal(`error: ${gatewayConfig}: route_groups[0].policies[2].config.preset: "turbo" is not a preset in rate-limits.yaml\n`);
    });

    it('checks a version\'s deprecation: its date and migration notes', async () => {

        const deprecated = editedGatewayConfig('name: v1\n      error_format: boom\n      status: current', 'name: v1\n      error_format: boom\n      status: deprecated\n      sunset: 2027-06-01');
        expect(await refusal({ GATEWAY_CONFIG: deprecated })).to.equal(`error: ${deprecated}: route_groups[0].version.deprecation: is required\n`
            + `${deprecated}: route_groups[0].version.migration_notes: is required\n`);
    });

    it('refuses an option the auth scheme does not take, and one out of its range', async () => {

        const unknown = editedGatewayConfig('scheme: api-key\n', 'scheme: api-key\n      config: { cache: 5 }\n');
        expect(await refusal({ GATEWAY_CONFIG: unknown })).to.equal(`error: ${unknown}: route_groups[0].auth.config.cache: is not allowed\n`);

        const tooOld = editedGatewayConfig('scheme: api-key\n', 'scheme: api-key\n      config: { key_cache: { max_age_minutes: 60 } }\n');
        expect(await refusal({ GATEWAY_CONFIG: tooOld })).to.equal(`error: ${tooOld}: route_groups[0].auth.config.key_cache.max_age_minutes: must be at most 10: a change Redis missed must be seen within it\n`);
    });
});

describe('a command that cannot start the service', { timeout: cliTestTimeout }, () => {

    it('exits with its error instead of hanging on what start-up left open', async () => {

        // The API moves to /api/v3 with its group, but its reference, /api/v3/openapi.json, is not among the group's public paths.
        const gatewayConfig = editedGatewayConfig('paths: [/api/v1]', 'paths: [/api/v3]');

        const outcome = await runCli(['migrate'], cliEnvironment({ DATA_DIR: scratchDirectory(), GATEWAY_CONFIG: gatewayConfig }));

        expect(outcome.exitCode).to.equal(1);
        expect(outcome.stdout).to.equal('');
        expect(outcome.stderr).to.startWith('error: Gateway configuration: GET /api/v3/openapi.json lies under route group "family-api" but does not use its auth');
    });
});
