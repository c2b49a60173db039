import { loadGatewayConfig, loadPolicies } from '../../gateway/policies/load';
import { gatewayPolicies } from '../../gateway/policy-chain';
import { configFromEnvironment } from '../config';
import { command, commandGroup } from './command';
import { jsonOption, printResult } from './output';

export const policyCommands = commandGroup('policy', {
    check: command({
        usage: 'policy check [--json]',
        description: 'Validates the policy files (POLICIES_DIR) and the gateway config (GATEWAY_CONFIG)\nwithout starting the server or touching the database; exits 1 naming file, path and problem.',
        options: jsonOption,
        async run({ values }) {

            const config = configFromEnvironment();
            const plans = [...loadPolicies(config.policiesDir).plans.keys()];
            const routeGroups = loadGatewayConfig(config.gatewayConfig, Object.keys(gatewayPolicies)).routeGroups.map((group) => group.name);
            printResult(values.json, { policies_dir: config.policiesDir, plans, gateway_config: config.gatewayConfig, route_groups: routeGroups }, () => [
                `policies OK: ${config.policiesDir} (plans: ${plans.join(', ')})`,
                `gateway OK: ${config.gatewayConfig} (route groups: ${routeGroups.join(', ')})`
            ]);
        }
    })
});
