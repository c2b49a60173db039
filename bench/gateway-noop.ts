/*
 * What the gateway costs: an authenticated no-op route of the family API, through the whole
 * chain of gateway.yaml (API-key auth, plan gate, suspension, rate limit, resource and
 * operation scopes, RateLimit headers), against a bare hapi route answering the same JSON.
 * A third row, the same deployment's route outside any route group, tells what the
 * deployment's own server settings cost apart from the gateway.
 * Target: at least 85% of the bare route's requests/s.
 */
import type { ServerRoute } from '@hapi/hapi';

import { familyWithKey } from '../test/helpers/server';
import { preflight } from './lib/preflight';
import { assertNoErrors, printEnvironment, printMeasurements, printTargets } from './lib/report';
import { benchSettings, measureTargets, runScript } from './lib/run';
import { bareServer, benchDeployment, noopBody } from './lib/servers';

const targetRatio = 0.85;

const noopRoute: ServerRoute = {
    method: 'GET',
    path: '/api/v1/bench-noop',
    options: { auth: 'family-api', plugins: { gateway: { resource: 'persons', operation: 'read' } } },
    handler: () => noopBody
};

const ungatedRoute: ServerRoute = { method: 'GET', path: '/bench-noop', handler: () => noopBody };

async function gatewayNoop(): Promise<void> {

    const settings = benchSettings();
    printEnvironment('gateway-noop: the whole gateway chain vs bare hapi', settings);

    const bare = await bareServer();
    const gateway = await benchDeployment({ extraRoutes: [noopRoute, ungatedRoute] });
    try {
        const { key } = await familyWithKey(gateway);
        const baselineTarget = { scenario: 'bare hapi: GET /bare-noop', url: `${bare.info.uri}/bare-noop` };
        const ungatedTarget = { scenario: 'deployment, no gateway: GET /bench-noop', url: `${gateway.info.uri}${ungatedRoute.path}` };
        const gatewayTarget = { scenario: 'gateway: GET /api/v1/bench-noop', url: `${gateway.info.uri}${noopRoute.path}`, headers: { authorization: `Bearer ${key}` } };

        await preflight(baselineTarget, { status: 200 });
        await preflight(ungatedTarget, { status: 200 });
        await preflight({ ...gatewayTarget, headers: {} }, { status: 401 });
        await preflight(gatewayTarget, {
            status: 200,
            check: (_body, headers) => headers.has('ratelimit-policy') ? undefined : 'no RateLimit headers: the policy chain did not run'
        });

        const measurements = await measureTargets([baselineTarget, ungatedTarget, gatewayTarget], settings);
        const [baseline, , measured] = measurements;

        const ratio = measured.requestsPerSecond / baseline.requestsPerSecond;
        printMeasurements(measurements, baseline);
        printTargets([{ target: `gateway at least ${100 * targetRatio}% of bare hapi requests/s`, measured: `${(100 * ratio).toFixed(0)}%`, met: ratio >= targetRatio }]);
        assertNoErrors(measurements);
    }
    finally {
        await gateway.stop();
        await bare.stop();
    }
}

runScript(gatewayNoop);
