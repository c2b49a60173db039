import { loadGatewayConfig, loadPolicies } from '../../gateway/policies/load';
import { gatewayPolicies } from '../../gateway/policy-chain';
import { configFromEnvironment } from '../config';
import { command, commandGroup } from './command';

export const policyCommands = commandGroup('policy', {
    check: command({
        usage: 'policy check',
        description: 'Validates the policy files (POLICIES_DIR) and the gateway config (GATEWAY_CONFIG)\nwithout starting the server or touching the database; exits 1 naming file, path and problem.',
        options: {},
        async run() {

            const config = configFromEnvironment();
            const policies = loadPolicies(config.policiesDir);
            const gateway = loadGatewayConfig(config.gatewayConfig, Object.keys(gatewayPolicies));
            process.stdout.write([
                `policies OK: ${config.policiesDir} (plans: ${[...policies.plans.keys()].join(', ')})`,
                `gateway OK: ${config.gatewayConfig} (route groups: ${gateway.routeGroups.map((group) => group.name).join(', ')})`
            ].join('\n') + '\n');
        }
    })
});
