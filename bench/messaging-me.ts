/*
 * What a device token costs against an API key: GET /messaging/v1/me with a device's access token (the
 * messaging route group: device-token auth, account state, rate limits per device, user and family, token
 * scope), a no-op route of the same group, and the family API's no-op route with an API key (API-key auth
 * and its chain), against a bare hapi route answering the same JSON, in one run.
 * Target: the device token's no-op route at least as fast as the API key's (token verification costs no
 * more than key verification; within 5%, the noise of a run).
 */
import type { ServerRoute } from '@hapi/hapi';

import { connectedDevice, familyMember } from '../test/helpers/devices';
import { familyWithKey } from '../test/helpers/server';
import { noopRoute, ranThePolicyChain } from './lib/noop-routes';
import { preflight } from './lib/preflight';
import { assertNoErrors, printEnvironment, printMeasurements, printTargets, targetPercent } from './lib/report';
import { benchSettings, measureTargets, runScript } from './lib/run';
import { bareServer, benchDeployment, noopBody } from './lib/servers';

const targetRatio = 0.95;

const messagingNoopRoute: ServerRoute = {
    method: 'GET',
    path: '/messaging/v1/bench-noop',
    options: { auth: 'messaging', plugins: { gateway: { scope: 'profile' } } },
    handler: () => noopBody
};

async function messagingMe(): Promise<void> {

    const settings = benchSettings();
    printEnvironment('messaging-me: device tokens vs API keys vs bare hapi', settings);

    const bare = await bareServer();
    const deployment = await benchDeployment({ extraRoutes: [noopRoute, messagingNoopRoute] });
    try {
        const { key } = await familyWithKey(deployment);
        const { access_token: token } = await connectedDevice(deployment, await familyMember(deployment));
        const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
        const baselineTarget = { scenario: 'bare hapi: GET /bare-noop', url: `${bare.info.uri}/bare-noop` };
        const keyTarget = { scenario: 'API key: GET /api/v1/bench-noop', url: `${deployment.info.uri}${noopRoute.path}`, headers: bearer(key) };
        const tokenTarget = { scenario: 'device token: GET /messaging/v1/bench-noop', url: `${deployment.info.uri}${messagingNoopRoute.path}`, headers: bearer(token) };
        const meTarget = { scenario: 'device token: GET /messaging/v1/me', url: `${deployment.info.uri}/messaging/v1/me`, headers: bearer(token) };

        await preflight(baselineTarget, { status: 200 });
        await preflight({ ...keyTarget, headers: {} }, { status: 401 });
        await preflight(keyTarget, { status: 200, check: ranThePolicyChain });
        await preflight({ ...tokenTarget, headers: {} }, { status: 401 });
        await preflight(tokenTarget, { status: 200, check: ranThePolicyChain });
        await preflight(meTarget, { status: 200, check: ranThePolicyChain });

        const measurements = await measureTargets([baselineTarget, keyTarget, tokenTarget, meTarget], settings);
        const [baseline, byKey, byToken] = measurements;
        const ratio = byToken.requestsPerSecond / byKey.requestsPerSecond;
        printMeasurements(measurements, baseline);
        printTargets([{ target: `device token at least ${100 * targetRatio}% of an API key's requests/s`, measured: targetPercent(ratio), met: ratio >= targetRatio }]);
        assertNoErrors(measurements);
    }
    finally {
        await deployment.stop();
        await bare.stop();
    }
}

runScript(messagingMe);
