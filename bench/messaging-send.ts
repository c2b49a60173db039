/*
 * Sends through the gateway: `POST /messaging/v1/conversations/{id}/messages` with a device's access token
 * (device-token auth, account state, rate limits, token scope, an Idempotency-Key per request, the message
 * and its change in one transaction) beside the family API's create, `POST /api/v1/persons` with an API
 * key, and a bare hapi route parsing the same JSON, in one run, on SQLite and (when it answers) PostgreSQL.
 * Target: sends at least 50% of the family API's create rate on the same database.
 */
import type { Server } from '@hapi/hapi';

import { connectedDevice } from '../test/helpers/devices';
import { messagingFamily } from '../test/helpers/messaging';
import { familyWithKey } from '../test/helpers/server';
import { startDirectConversation } from '../lib/messaging/conversations';
import { withBareAndDeployments } from './lib/deployments';
import { preflight } from './lib/preflight';
import { assertNoErrors, printEnvironment, printMeasurements, printTargets, targetPercent } from './lib/report';
import { benchSettings, measureTargets, runScript, type Target } from './lib/run';

const targetRatio = 0.5;
const json = { 'content-type': 'application/json' };
const person = JSON.stringify({ first_name: 'Émilie', last_name: 'du Châtelet', gender: 'female', birth_date: '1706-12-17', birth_place: 'Paris' });
const message = JSON.stringify({ body: 'Dinner at ours on Sunday? 🍲 Bring the old photo albums.' });

/** The family API's create and a device's send on `server`. */
async function targetsOn(database: string, server: Server): Promise<[Target, Target]> {

    const { key } = await familyWithKey(server, { operations: ['read', 'create'] });
    const create: Target = { scenario: `${database}: POST /api/v1/persons (API key)`, url: `${server.info.uri}/api/v1/persons`, method: 'POST', headers: { ...json, authorization: `Bearer ${key}` }, body: person };
    await preflight(create, { status: 201 });

    const { users, actors } = await messagingFamily(server, 2);
    const { conversation } = await startDirectConversation(server.app.services.messaging, actors[0], users[1].id);
    const { access_token: token } = await connectedDevice(server, users[0]);
    const send: Target = {
        scenario: `${database}: POST /messaging/v1/…/messages (device token)`,
        url: `${server.info.uri}/messaging/v1/conversations/${conversation.id}/messages`,
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${token}`, 'idempotency-key': '[<id>]' },
        body: message,
        uniqueIds: true
    };
    await preflight(send, { status: 201, check: (body) => (body.data?.body ? undefined : `expected the message sent, got ${JSON.stringify(body)}`) });
    return [create, send];
}

async function messagingSend(): Promise<void> {

    const settings = benchSettings();
    printEnvironment('messaging-send: sends through the gateway vs the family API\'s creates', settings);

    await withBareAndDeployments(async (bare, deployments) => {

        const baselineTarget: Target = { scenario: 'bare hapi: POST /bare-echo', url: `${bare.info.uri}/bare-echo`, method: 'POST', headers: json, body: message };
        await preflight(baselineTarget, { status: 201 });
        const pairs: Array<{ database: string; create: Target; send: Target }> = [];
        for (const { database, server } of deployments) {
            const [create, send] = await targetsOn(database, server);
            pairs.push({ database, create, send });
        }

        const measurements = await measureTargets([baselineTarget, ...pairs.flatMap((pair) => [pair.create, pair.send])], settings);
        const [baseline, ...rest] = measurements;
        printMeasurements(measurements, baseline);
        printTargets(pairs.map((pair, index) => {

            const ratio = rest[2 * index + 1].requestsPerSecond / rest[2 * index].requestsPerSecond;
            return { target: `${pair.database}: sends at least ${100 * targetRatio}% of the family API's creates/s`, measured: targetPercent(ratio), met: ratio >= targetRatio };
        }));
        assertNoErrors(measurements);
    });
}

runScript(messagingSend);
