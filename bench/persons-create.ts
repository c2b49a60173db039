/*
 * A real write path: `POST /api/v1/persons` through the whole gateway, on the embedded SQLite default and,
 * when it answers on 127.0.0.1, on PostgreSQL (in a scratch database of its own). Each request creates a
 * person and its change event in one transaction, and wakes the webhook fan-out. Baseline: a bare hapi
 * route that parses the same JSON body, in the same run. No target: the issues set none for writes.
 */
import type { Server } from '@hapi/hapi';

import { familyWithKey } from '../test/helpers/server';
import { withBareAndDeployments } from './lib/deployments';
import { preflight } from './lib/preflight';
import { assertNoErrors, printEnvironment, printMeasurements } from './lib/report';
import { benchSettings, measureTargets, runScript, type Target } from './lib/run';

const person = JSON.stringify({ first_name: 'Émilie', last_name: 'du Châtelet', gender: 'female', birth_date: '1706-12-17', birth_place: 'Paris' });
const json = { 'content-type': 'application/json' };

/** A family on `server` with a key that may create persons, and its create as a target. */
async function createTarget(database: string, server: Server): Promise<Target> {

    const { key } = await familyWithKey(server, { operations: ['read', 'create'] });
    const target: Target = {
        scenario: `${database}: POST /api/v1/persons`,
        url: `${server.info.uri}/api/v1/persons`,
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${key}` },
        body: person
    };

    await preflight(target, {
        status: 201,
        check: (body) => (body.data?.first_name === 'Émilie' && body.data.revision === 1 ? undefined : `expected the person created, got ${JSON.stringify(body)}`)
    });

    return target;
}

async function personsCreate(): Promise<void> {

    const settings = benchSettings();
    printEnvironment('persons-create: POST /api/v1/persons', settings);

    await withBareAndDeployments(async (bare, deployments) => {

        const baselineTarget: Target = { scenario: 'bare hapi: POST /bare-echo', url: `${bare.info.uri}/bare-echo`, method: 'POST', headers: json, body: person };
        await preflight(baselineTarget, { status: 201 });
        const targets = [baselineTarget];
        for (const { database, server } of deployments) {
            targets.push(await createTarget(database, server));
        }

        const [baseline, ...creates] = await measureTargets(targets, settings);
        printMeasurements([baseline, ...creates], baseline);
        assertNoErrors([baseline, ...creates]);
    });
}

runScript(personsCreate);
