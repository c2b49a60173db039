/*
 * The servers gateway-instructions.ts counts instructions in: this process runs under callgrind,
 * while the load comes from the parent, outside it. It starts bare hapi and the deployments of
 * gateway-noop.ts, prints one line `TARGETS <json>` naming their URLs and keys, and runs until SIGTERM.
 */
import { editPolicyFile, policiesWithoutLimits } from '../../test/helpers/policy-files';
import { familyWithKey } from '../../test/helpers/server';
import { addAdmittedRoutes, admittedPaths, authOnlyGatewayConfig, noopRoute, ungatedRoute } from './noop-routes';
import { runScript, type Target } from './run';
import { bareServer, benchDeployment } from './servers';

export interface InstructionTargets {
    bare: Target;
    ungated: Target;
    admitted: Target;
    admittedWithHeaders: Target;
    authOnly: Target;
    gateway: Target;
}

export const readyPrefix = 'TARGETS ';

/**
 * The bench policies with the webhook worker's safety-net sweep once a year instead of every second.
 * Why: the sweep's work comes per second, not per request; callgrind's slowdown makes it a large part
 * of the counted process's work, counted into whichever row is loaded at the time, and more of it the
 * slower the machine runs.
 */
function policiesWithoutSweep(): string {

    const directory = policiesWithoutLimits();
    editPolicyFile(directory, 'webhooks.yaml', 'sweep: "* * * * * *"', 'sweep: "0 0 1 1 *"');
    return directory;
}

async function instructionServers(): Promise<void> {

    const bare = await bareServer();
    const gateway = await benchDeployment({ extraRoutes: [noopRoute, ungatedRoute], env: { POLICIES_DIR: policiesWithoutSweep() } });
    addAdmittedRoutes(gateway);
    const authOnly = await benchDeployment({ extraRoutes: [noopRoute], env: { POLICIES_DIR: policiesWithoutSweep(), GATEWAY_CONFIG: authOnlyGatewayConfig() } });
    const { key } = await familyWithKey(gateway);
    const { key: authOnlyKey } = await familyWithKey(authOnly);

    const targets: InstructionTargets = {
        bare: { scenario: 'bare hapi: GET /bare-noop', url: `${bare.info.uri}/bare-noop` },
        ungated: { scenario: 'deployment, no gateway: GET /bench-noop', url: `${gateway.info.uri}${ungatedRoute.path}` },
        admitted: { scenario: 'deployment + auth scheme admitting all', url: `${gateway.info.uri}${admittedPaths.withoutHeaders}` },
        admittedWithHeaders: { scenario: 'deployment + admitting all + RateLimit headers', url: `${gateway.info.uri}${admittedPaths.withHeaders}` },
        authOnly: { scenario: 'gateway, API-key auth only (no policy)', url: `${authOnly.info.uri}${noopRoute.path}`, headers: { authorization: `Bearer ${authOnlyKey}` } },
        gateway: { scenario: 'gateway: GET /api/v1/bench-noop', url: `${gateway.info.uri}${noopRoute.path}`, headers: { authorization: `Bearer ${key}` } }
    };

    process.stdout.write(`${readyPrefix}${JSON.stringify(targets)}\n`);
    process.once('SIGTERM', async () => {

        await Promise.all([bare.stop(), gateway.stop(), authOnly.stop()]);
        process.exit(0);
    });
}

if (require.main === module) {
    runScript(instructionServers);
}
