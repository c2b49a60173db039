import Fs from 'fs';
import Os from 'os';
import Path from 'path';

import { PolicyError } from '../../gateway/policies/data-file';
import { configFromEnvironment, type Config } from '../config';
import { deployment } from '../deployment';
import { consoleLog } from '../logger';
import { command, commandGroup } from './command';
import { CliError } from './errors';
import { jsonOption, printResult } from './output';

/**
 * Builds the service as start-up does, with these policies and gateway config, on a scratch in-memory
 * database: start-up also checks the config against the routes (every route under a group's paths uses
 * its auth and declares a resource and operation of scopes.yaml; the API reference can describe them),
 * which the files alone cannot tell. Resolves with the plans and route groups it loaded.
 */
async function buildAsStartUpWould(config: Config): Promise<{ plans: string[]; routeGroups: string[] }> {

    const scratch = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'family-records-policy-check-'));
    try {
        const server = await deployment({
            config: { ...config, databaseUrl: 'sqlite::memory:', redisUrl: undefined, dataDir: scratch, filesDir: Path.join(scratch, 'files'), watchPolicies: false },
            log: consoleLog(true, config.logFormat)
        });
        const loaded = { plans: [...server.app.services.policyStore.current().plans.keys()], routeGroups: server.plugins.gateway.config().routeGroups.map((group) => group.name) };
        await server.stop();
        return loaded;
    }
    catch (error) {
        if (error instanceof PolicyError) {
            throw error;
        }

        throw new CliError(`${config.gatewayConfig}: the service would not start with it: ${(error as Error).message}`);
    }
    finally {
        Fs.rmSync(scratch, { recursive: true, force: true });
    }
}

export const policyCommands = commandGroup('policy', {
    check: command({
        usage: 'policy check [--json]',
        description: 'Validates the policy files (POLICIES_DIR) and the gateway config (GATEWAY_CONFIG) as start-up\ndoes, without listening or touching the database; exits 1 naming file, path and problem.',
        options: jsonOption,
        async run({ values }) {

            const config = configFromEnvironment();
            const { plans, routeGroups } = await buildAsStartUpWould(config);
            printResult(values.json, { policies_dir: config.policiesDir, plans, gateway_config: config.gatewayConfig, route_groups: routeGroups }, () => [
                `policies OK: ${config.policiesDir} (plans: ${plans.join(', ')})`,
                `gateway OK: ${config.gatewayConfig} (route groups: ${routeGroups.join(', ')})`
            ]);
        }
    })
});
