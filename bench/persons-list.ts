/*
 * A real read path: `GET /api/v1/persons?limit=50` for a family with 10,000 persons, through
 * the whole gateway, on the embedded SQLite default and, when it answers on 127.0.0.1, on
 * PostgreSQL (in a scratch database of its own). Baseline: a bare hapi route in the same run.
 * Target: p99 under 25 ms at 50 connections.
 */
import type { Server } from '@hapi/hapi';

import { familyWithKey } from '../test/helpers/server';
import { withBareAndDeployments } from './lib/deployments';
import { preflight } from './lib/preflight';
import { assertNoErrors, printEnvironment, printMeasurements, printTargets } from './lib/report';
import { benchSettings, measureTargets, runScript, type Target } from './lib/run';
import { seedPersons } from './lib/seed';

const personCount = 10_000;
const pageSize = 50;
const targetP99Ms = 25;

/** A family of `personCount` persons on `server`, and the first page of its list as a target. */
async function listTarget(database: string, server: Server): Promise<Target> {

    const { familyLongId, key } = await familyWithKey(server);
    await seedPersons(server, familyLongId, personCount);

    const target = {
        scenario: `${database}: GET /api/v1/persons?limit=${pageSize}`,
        url: `${server.info.uri}/api/v1/persons?limit=${pageSize}`,
        headers: { authorization: `Bearer ${key}` }
    };

    await preflight(target, {
        status: 200,
        check: (body) => (body.data.length === pageSize && body.meta.next_cursor ? undefined : `expected a full page of ${pageSize} with a next cursor, got ${body.data.length}`)
    });

    return target;
}

async function personsList(): Promise<void> {

    const settings = benchSettings();
    printEnvironment(`persons-list: GET /api/v1/persons?limit=${pageSize} on ${personCount} persons`, settings);

    await withBareAndDeployments(async (bare, deployments) => {

        const targets: Target[] = [{ scenario: 'bare hapi: GET /bare-noop', url: `${bare.info.uri}/bare-noop` }];
        for (const { database, server } of deployments) {
            targets.push(await listTarget(database, server));
        }

        const [baseline, ...lists] = await measureTargets(targets, settings);
        printMeasurements([baseline, ...lists], baseline);
        printTargets(lists.map((list, i) => ({
            target: `${deployments[i].database}: p99 under ${targetP99Ms} ms at ${settings.connections} connections`,
            measured: `p99 ${list.p99Ms} ms`,
            met: list.p99Ms < targetP99Ms
        })));
        assertNoErrors([baseline, ...lists]);
    });
}

runScript(personsList);
