/*
 * What the gateway costs: an authenticated no-op route of the family API, through the whole
 * chain of gateway.yaml (API-key auth, plan gate, suspension, rate limit, resource and
 * operation scopes, RateLimit headers), against a bare hapi route answering the same JSON.
 * Rows that explain the ratio, not targets: the same deployment's route outside any route group
 * (what the deployment's own server settings cost apart from the gateway), the gateway with
 * every policy of its chain disabled (what API-key authentication alone costs), the bare route
 * behind an auth scheme that admits every request without reading it (what hapi's own
 * authentication step costs: the floor under any hapi auth scheme, ours included), the same
 * scheme on a route of the deployment, without and with the RateLimit headers the gateway writes
 * (the floor under any gateway of this deployment: no key read, no policy run), the gateway with
 * Prometheus metrics on (METRICS_PORT: what timing every request costs), and the bare
 * route doing 2 µs of busy work (how far 2 µs more per request moves the ratio on this machine).
 * Target: at least 85% of the bare route's requests/s.
 */
import type { ServerRoute } from '@hapi/hapi';

import { familyWithKey } from '../test/helpers/server';
import {
    addAdmittedRoutes, addStrategy, admitEveryRequest, admittedPaths, authOnlyGatewayConfig, noopRoute, ranNoPolicy, ranThePolicyChain,
    ungatedRoute, wroteFixedRateLimitHeaders
} from './lib/noop-routes';
import { preflight } from './lib/preflight';
import { assertNoErrors, printEnvironment, printMeasurements, printTargets, targetPercent } from './lib/report';
import { benchSettings, measureTargets, runScript } from './lib/run';
import { bareServer, benchDeployment, noopBody } from './lib/servers';

const targetRatio = 0.85;

const calibrationMicroseconds = 2;

/** The baseline's answer after `calibrationMicroseconds` of busy work. */
const busyRoute: ServerRoute = {
    method: 'GET',
    path: '/bare-busy',
    handler: () => {

        const until = process.hrtime.bigint() + BigInt(calibrationMicroseconds * 1000);
        while (process.hrtime.bigint() < until) {
            // busy: the point of this route
        }

        return noopBody;
    }
};

const admittedRoute: ServerRoute = {
    method: 'GET',
    path: '/bare-admitted',
    options: { auth: 'admit-every-request' },
    handler: () => noopBody
};

async function gatewayNoop(): Promise<void> {

    const settings = benchSettings();
    printEnvironment('gateway-noop: the whole gateway chain vs bare hapi', settings);

    const bare = await bareServer();
    bare.route(busyRoute);
    addStrategy(bare, 'admit-every-request', admitEveryRequest);
    bare.route(admittedRoute);
    const gateway = await benchDeployment({ extraRoutes: [noopRoute, ungatedRoute] });
    addAdmittedRoutes(gateway);
    const authOnly = await benchDeployment({ extraRoutes: [noopRoute], env: { GATEWAY_CONFIG: authOnlyGatewayConfig() } });
    const metered = await benchDeployment({ extraRoutes: [noopRoute], env: { METRICS_PORT: '0' } });
    try {
        const { key } = await familyWithKey(gateway);
        const { key: authOnlyKey } = await familyWithKey(authOnly);
        const { key: meteredKey } = await familyWithKey(metered);
        const baselineTarget = { scenario: 'bare hapi: GET /bare-noop', url: `${bare.info.uri}/bare-noop` };
        const ungatedTarget = { scenario: 'deployment, no gateway: GET /bench-noop', url: `${gateway.info.uri}${ungatedRoute.path}` };
        const authOnlyTarget = { scenario: 'gateway, API-key auth only (no policy)', url: `${authOnly.info.uri}${noopRoute.path}`, headers: { authorization: `Bearer ${authOnlyKey}` } };
        const gatewayTarget = { scenario: 'gateway: GET /api/v1/bench-noop', url: `${gateway.info.uri}${noopRoute.path}`, headers: { authorization: `Bearer ${key}` } };
        const meteredTarget = { scenario: 'gateway, Prometheus metrics on', url: `${metered.info.uri}${noopRoute.path}`, headers: { authorization: `Bearer ${meteredKey}` } };
        const admittedTarget = { scenario: 'bare hapi + auth scheme admitting all', url: `${bare.info.uri}${admittedRoute.path}` };
        const deploymentAdmittedTarget = { scenario: 'deployment + auth scheme admitting all', url: `${gateway.info.uri}${admittedPaths.withoutHeaders}` };
        const deploymentHeadersTarget = { scenario: 'deployment + admitting all + RateLimit headers', url: `${gateway.info.uri}${admittedPaths.withHeaders}` };
        const busyTarget = { scenario: `bare hapi + ${calibrationMicroseconds} µs busy work`, url: `${bare.info.uri}${busyRoute.path}` };

        await preflight(baselineTarget, { status: 200 });
        await preflight(busyTarget, { status: 200 });
        await preflight(admittedTarget, { status: 200 });
        await preflight(ungatedTarget, { status: 200 });
        await preflight(deploymentAdmittedTarget, { status: 200, check: ranNoPolicy });
        await preflight(deploymentHeadersTarget, { status: 200, check: wroteFixedRateLimitHeaders });
        await preflight({ ...authOnlyTarget, headers: {} }, { status: 401 });
        await preflight(authOnlyTarget, { status: 200, check: ranNoPolicy });
        await preflight({ ...gatewayTarget, headers: {} }, { status: 401 });
        await preflight(gatewayTarget, { status: 200, check: ranThePolicyChain });

        await preflight(meteredTarget, { status: 200 });

        const measurements = await measureTargets([baselineTarget, ungatedTarget, authOnlyTarget, gatewayTarget, meteredTarget,
            admittedTarget, deploymentAdmittedTarget, deploymentHeadersTarget, busyTarget], settings);
        const [baseline, , , measured] = measurements;

        const ratio = measured.requestsPerSecond / baseline.requestsPerSecond;
        printMeasurements(measurements, baseline);
        printTargets([{ target: `gateway at least ${100 * targetRatio}% of bare hapi requests/s`, measured: targetPercent(ratio), met: ratio >= targetRatio }]);
        assertNoErrors(measurements);
    }
    finally {
        await metered.stop();
        await authOnly.stop();
        await gateway.stop();
        await bare.stop();
    }
}

runScript(gatewayNoop);
