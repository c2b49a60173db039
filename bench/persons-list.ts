/*
 * A real read path: `GET /api/v1/persons?limit=50` for a family with 10,000 persons, living and dead, and their events,
 * through the whole gateway, on the embedded SQLite default and, when it answers on 127.0.0.1, on PostgreSQL (in a
 * scratch database of its own). The same page with a key whose living persons are redacted, in the same run on the same
 * family. Baseline: a bare hapi route in the same run.
 * Targets: p99 under 25 ms at 50 connections; a redacted page costs no more than 20% over a full one.
 */
import type { Server } from '@hapi/hapi';

import { createApiKey } from '../lib/accounts/api-keys';
import { familyWithKey } from '../test/helpers/server';
import { withBareAndDeployments } from './lib/deployments';
import { seedLivingAndDeadFamily } from './lib/living-family-seed';
import { preflight } from './lib/preflight';
import { assertNoErrors, median, printEnvironment, printMeasurements, printTargets, targetPercent, type TargetCheck } from './lib/report';
import { benchSettings, measureTargets, runScript, type Measurement, type Target } from './lib/run';

const personCount = 10_000;
const pageSize = 50;
const targetP99Ms = 25;
const redactedCostTarget = 1.2;

interface Page {
    data: { first_name: string; redacted?: boolean }[];
    meta: { next_cursor: string | null };
}

const fullPage = (body: Page) => body.data.length === pageSize && body.meta.next_cursor;

/** The first page of one family's persons, with a full key and with a redacted one. */
async function listTargets(database: string, server: Server): Promise<{ full: Target; redacted: Target }> {

    const { familyLongId, key } = await familyWithKey(server);
    const seeded = await seedLivingAndDeadFamily(server, familyLongId, personCount);
    process.stderr.write(`${database}: ${seeded.persons} persons, ${seeded.events} events\n`);
    const { key: redactedKey } = await createApiKey(server.app.services.accounts, {
        familyLongId,
        name: 'redacted bench key',
        resources: ['persons'],
        operations: ['read'],
        createdBy: 'bench',
        livingPersons: 'redacted'
    });

    const url = `${server.info.uri}/api/v1/persons?limit=${pageSize}`;
    const full = { scenario: `${database}: GET /api/v1/persons?limit=${pageSize}`, url, headers: { authorization: `Bearer ${key}` } };
    const redacted = { scenario: `${database}: the same, living persons redacted`, url, headers: { authorization: `Bearer ${redactedKey}` } };

    await preflight(full, {
        status: 200,
        check: (body: Page) => (fullPage(body) && body.data.every((person) => person.redacted === undefined) ? undefined : `expected a full page of ${pageSize} with a next cursor, nothing redacted`)
    });
    await preflight(redacted, {
        status: 200,
        check: (body: Page) => {

            const hidden = body.data.filter((person) => person.redacted);
            return fullPage(body) && hidden.length > 0 && hidden.length < pageSize && hidden.every((person) => person.first_name === 'Living') ?
                undefined :
                `expected a full page of ${pageSize} with a next cursor, some persons redacted as "Living" and some not; got ${hidden.length} redacted`;
        }
    });

    return { full, redacted };
}

/**
 * The targets of one database: the full list's p99, and what the redacted list costs over it. A request's cost is the
 * time it holds the service: at the same concurrency, the inverse of the throughput. Each round's redacted slice follows
 * its full one, so their ratio meets the same machine; the target reads the median of the rounds' ratios.
 */
function checks(database: string, full: Measurement, redacted: Measurement, connections: number): TargetCheck[] {

    const rounds = full.roundRequestsPerSecond.map((fullRate, round) => fullRate / redacted.roundRequestsPerSecond[round]);
    const cost = median(rounds);
    const [lowest, highest] = [Math.min(...rounds), Math.max(...rounds)];
    return [
        { target: `${database}: p99 under ${targetP99Ms} ms at ${connections} connections`, measured: `p99 ${full.p99Ms} ms`, met: full.p99Ms < targetP99Ms },
        {
            target: `${database}: a redacted page costs no more than ${targetPercent(redactedCostTarget - 1)} over a full one`,
            measured: `${targetPercent(cost - 1)} over, median of ${rounds.length} rounds (${targetPercent(lowest - 1)} to ${targetPercent(highest - 1)}; whole run ${redacted.requestsPerSecond.toFixed(0)} against ${full.requestsPerSecond.toFixed(0)} req/s, p99 ${redacted.p99Ms} against ${full.p99Ms} ms, server µs/req ${redacted.serverMicrosPerRequest.toFixed(0)} against ${full.serverMicrosPerRequest.toFixed(0)})`,
            met: cost <= redactedCostTarget
        }
    ];
}

async function personsList(): Promise<void> {

    const settings = benchSettings();
    printEnvironment(`persons-list: GET /api/v1/persons?limit=${pageSize} on ${personCount} persons, full and redacted`, settings);

    await withBareAndDeployments(async (bare, deployments) => {

        const targets: Target[] = [{ scenario: 'bare hapi: GET /bare-noop', url: `${bare.info.uri}/bare-noop` }];
        for (const { database, server } of deployments) {
            const { full, redacted } = await listTargets(database, server);
            targets.push(full, redacted);
        }

        const [baseline, ...lists] = await measureTargets(targets, settings);
        printMeasurements([baseline, ...lists], baseline);
        printTargets(deployments.flatMap(({ database }, i) => checks(database, lists[2 * i], lists[2 * i + 1], settings.connections)));
        assertNoErrors([baseline, ...lists]);
    });
}

runScript(personsList);
