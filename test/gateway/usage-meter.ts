import * as Lab from '@hapi/lab';
import { expect } from '@hapi/code';
import type { Server } from '@hapi/hapi';

import { hourOf, statusClassOf, UsageMeter } from '../../gateway/usage-meter';
import { editPolicyFile } from '../helpers/policy-files';
import { copyPolicies, familyWithKey, testServer } from '../helpers/server';
import { clearOfHourBoundary } from '../helpers/timing';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe('UsageMeter', () => {

    let server: Server;

    before(async () => {

        server = await testServer();
    });

    after(async () => {

        await server.stop();
    });

    const countsOf = (keyId: string) => server.app.services.models.UsageCounter.findAll({ where: { key_id: keyId }, order: [['route', 'ASC'], ['status_class', 'ASC']], raw: true });

    it('counts a key\'s requests by route and status class in memory, and writes them at a flush', async () => {

        await clearOfHourBoundary();                // every count of the test in one hour

        const family = await familyWithKey(server, { resources: ['persons'] });
        await family.inject('GET', '/api/v1/persons');
        await family.inject('GET', '/api/v1/persons');
        await family.inject('GET', '/api/v1/persons/per_doesnotexist0000000');
        await family.inject('GET', '/api/v1/trees');
        expect(await countsOf(family.keyId)).to.have.length(0);          // no database write per request

        await server.app.services.usageMeter.flush();
        const counts = await countsOf(family.keyId);
        expect(counts.map(({ route, status_class, requests, route_group, family_long_id }) => ({ route, status_class, requests, route_group, family_long_id }))).to.equal([
            { route: 'GET /api/v1/persons', status_class: '2xx', requests: 2, route_group: 'family-api', family_long_id: family.familyLongId },
            { route: 'GET /api/v1/persons/{id}', status_class: '4xx', requests: 1, route_group: 'family-api', family_long_id: family.familyLongId },
            { route: 'GET /api/v1/trees', status_class: '4xx', requests: 1, route_group: 'family-api', family_long_id: family.familyLongId }
        ]);
        expect(counts[0].hour).to.equal(hourOf(Date.now()));
    });

    it('adds to what is stored, so instances sharing a database keep exact totals', async () => {

        await clearOfHourBoundary();                // every count of the test in one hour

        const second = await testServer({ shareWith: server });
        const family = await familyWithKey(server, { resources: ['persons'] });
        try {
            await family.inject('GET', '/api/v1/persons');
            await server.app.services.usageMeter.flush();
            await second.inject({ method: 'GET', url: '/api/v1/persons', headers: { authorization: `Bearer ${family.key}` } });
            await second.inject({ method: 'GET', url: '/api/v1/persons', headers: { authorization: `Bearer ${family.key}` } });
            await second.app.services.usageMeter.flush();
            await family.inject('GET', '/api/v1/persons');
        }
        finally {
            await second.stop();                // stopping flushes what it still holds
        }

        await server.app.services.usageMeter.flush();
        expect((await countsOf(family.keyId)).map((row) => row.requests)).to.equal([4]);
    });

    it('keeps the counts of a failed flush for the next one', async () => {

        await clearOfHourBoundary();                // every count of the test in one hour

        const services = server.app.services;
        let failNext = true;
        const meter = new UsageMeter({
            ...services,
            log: () => undefined,
            transaction: (work) => (failNext ? ((failNext = false), Promise.reject(new Error('database down'))) : services.transaction(work))
        });

        const family = await familyWithKey(server);
        meter.count({ keyId: family.keyId, familyLongId: family.familyLongId, routeGroup: 'family-api', route: 'GET /api/v1/trees', statusCode: 200 });
        await meter.flush();
        expect(await countsOf(family.keyId)).to.have.length(0);
        meter.count({ keyId: family.keyId, familyLongId: family.familyLongId, routeGroup: 'family-api', route: 'GET /api/v1/trees', statusCode: 204 });
        await meter.flush();
        expect((await countsOf(family.keyId)).map((row) => row.requests)).to.equal([2]);
    });

    it('deletes counts older than the retention of usage.yaml', async () => {

        const family = await familyWithKey(server);
        const meter = server.app.services.usageMeter;
        const retentionDays = server.app.services.policyStore.current().usage.retention_days;
        const now = Date.now();
        for (const daysAgo of [0, retentionDays - 1, retentionDays + 1]) {
            meter.count({ keyId: family.keyId, familyLongId: family.familyLongId, routeGroup: 'family-api', route: `GET /${daysAgo}`, statusCode: 200, at: now - daysAgo * 86_400_000 });
        }

        await meter.flush();
        expect(await countsOf(family.keyId)).to.have.length(3);
        await meter.deleteExpired(now);
        expect((await countsOf(family.keyId)).map((row) => row.route).sort()).to.equal(['GET /0', `GET /${retentionDays - 1}`].sort());
    });

    it('deletes them on the cleanup schedule of usage.yaml, which follows a reload', async () => {

        const policiesDir = copyPolicies();
        const edited = await testServer({ policiesDir });
        try {
            const family = await familyWithKey(edited);
            const meter = edited.app.services.usageMeter;
            const retentionDays = edited.app.services.policyStore.current().usage.retention_days;
            meter.count({ keyId: family.keyId, familyLongId: family.familyLongId, routeGroup: 'family-api', route: 'GET /old', statusCode: 200, at: Date.now() - (retentionDays + 1) * 86_400_000 });
            await meter.flush();
            const stored = () => edited.app.services.models.UsageCounter.count({ where: { key_id: family.keyId } });
            expect(await stored()).to.equal(1);

            // As shipped, daily at 03:17; every second from the reload on.
            editPolicyFile(policiesDir, 'usage.yaml', 'cleanup_schedule: "17 3 * * *"', 'cleanup_schedule: "* * * * * *"');
            expect(edited.app.services.policyStore.reload()).to.be.true();
            for (let waited = 0; await stored() > 0 && waited < 5000; waited += 100) {
                await new Promise((resolve) => setTimeout(resolve, 100));
            }

            expect(await stored()).to.equal(0);
        }
        finally {
            await edited.stop();
        }
    });

    it('names status classes', () => {

        expect([200, 204, 302, 401, 429, 500, 503].map(statusClassOf)).to.equal(['2xx', '2xx', '3xx', '4xx', '4xx', '5xx', '5xx']);
    });
});
