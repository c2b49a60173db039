import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';
import { Client } from 'pg';

import { testServerWithFamily, testVariant, type FamilyFixture } from '../helpers/server';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

const concurrentReads = 6;

/** The connections of this database that wait on a lock: the service's reads of a table the test holds locked. */
async function connectionsWaitingOnLock(observer: Client): Promise<number> {

    const { rows } = await observer.query<{ count: number }>("SELECT count(*)::integer AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    return rows[0].count;
}

/**
 * While the test holds `persons` locked, `concurrentReads` list requests each take a connection of the service's
 * pool and wait on the lock: the most connections seen waiting at once, over a second and a half, is how many the
 * pool gave out. Then the lock goes, and every request is answered.
 */
async function mostConnectionsAtOnce(family: FamilyFixture): Promise<number> {

    const observer = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await observer.connect();
    const locker = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await locker.connect();
    try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE persons IN ACCESS EXCLUSIVE MODE');
        const reads = Array.from({ length: concurrentReads }, () => family.inject('GET', '/api/v1/persons?limit=5'));
        let most = 0;
        for (let sample = 0; sample < 30; ++sample) {
            most = Math.max(most, await connectionsWaitingOnLock(observer));
            await new Promise((resolve) => setTimeout(resolve, 50));
        }

        await locker.query('COMMIT');
        const answers = await Promise.all(reads);
        expect(answers.map((answer) => answer.statusCode)).to.equal(Array(concurrentReads).fill(200));
        return most;
    }
    finally {
        await locker.end();
        await observer.end();
    }
}

describe('DATABASE_POOL_MAX', { skip: testVariant !== 'postgres' }, () => {

    describe('set to 2', () => {

        let server: Server;
        let family: FamilyFixture;

        before(async () => {

            ({ server, family } = await testServerWithFamily({ env: { DATABASE_POOL_MAX: '2' } }));
            expect((await family.inject('GET', '/api/v1/persons?limit=5')).statusCode).to.equal(200);     // the key and the family cached
        });

        after(() => server.stop());

        it('holds no more than 2 PostgreSQL connections: the other requests wait for one, then are answered', async () => {

            expect(await mostConnectionsAtOnce(family)).to.equal(2);
        });
    });

    describe('unset', () => {

        let server: Server;
        let family: FamilyFixture;

        before(async () => {

            ({ server, family } = await testServerWithFamily());
            expect((await family.inject('GET', '/api/v1/persons?limit=5')).statusCode).to.equal(200);
        });

        after(() => server.stop());

        it('holds up to 10: the same concurrent reads each get a connection of their own', async () => {

            expect(await mostConnectionsAtOnce(family)).to.equal(concurrentReads);
        });
    });
});
