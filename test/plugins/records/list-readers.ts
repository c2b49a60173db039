import Crypto from 'crypto';

import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes, Sequelize } from 'sequelize';

import { openDatabase } from '../../../lib/database';
import { persons } from '../../../models/resources/persons';
import { listReader, preparedLimit, preparedPerConnection } from '../../../plugins/records/list-readers';
import { listStatement, type ListOptions } from '../../../plugins/records/list-sql';
import { listedRecords } from '../../../plugins/records/listed-records';
import { familyWithKey, testServer, testVariant, type FamilyFixture } from '../../helpers/server';
import { insertPersons } from '../formats/helpers';
import { dataOf } from './fixtures';

export const lab = Lab.script();
const { describe, it, before, after } = lab;

describe(`listReader() on ${testVariant}`, () => {

    let server: Server;
    let family: FamilyFixture;
    let personId: string;

    before(async () => {

        server = await testServer();
        family = await familyWithKey(server);
        personId = dataOf(await family.inject('POST', '/api/v1/persons', { first_name: 'Read', last_name: 'Directly', gender: 'female', birth_place: 'Lund' }), 201).id;
    });

    after(() => server.stop());

    const options = (filters: Record<string, unknown>): ListOptions => ({ familyLongId: family.familyLongId, sort: 'created_at', direction: 'asc', filters });
    /** The person's own values of some fields. */
    const matching: Record<string, unknown> = { first_name: 'Read', last_name: 'Directly', gender: 'female', birth_place: 'Lund' };
    const filterable = ['first_name', 'last_name', 'birth_name', 'gender', 'birth_date', 'birth_place', 'death_date', 'death_place', 'tree_id'];

    /** `count` distinct sets of filters, each a statement text of its own: the person's values where it has one, else 'other'. */
    const filterSubsets = (count: number) => Array.from({ length: count }, (_, index) => {

        const subset = filterable.filter((_field, bit) => (index + 1) & (1 << bit));
        return Object.fromEntries(subset.map((field) => [field, matching[field] ?? 'other']));
    });

    const idsMatching = (filters: Record<string, unknown>) => (Object.keys(filters).every((field) => field in matching) ? [personId] : []);
    const idsRead = async (reader: ReturnType<typeof listReader>, filters: Record<string, unknown>) => {

        const { rows } = await reader.read(listStatement(persons, options(filters), testVariant, 10));
        return (JSON.parse(rows) as unknown[][]).map((values) => values[0]);
    };

    it('answers more distinct statement shapes than it keeps prepared, and again after evicting them, then closes', async () => {

        const reader = listReader(server.app.services.sequelize);
        for (const filters of [...filterSubsets(preparedLimit + 50), ...filterSubsets(20)]) {
            expect(await idsRead(reader, filters)).to.equal(idsMatching(filters));
        }

        await reader.close();
    });

    it('reads the same statement concurrently', async () => {

        const reader = listReader(server.app.services.sequelize);
        const reads = await Promise.all(Array.from({ length: 20 }, () => idsRead(reader, { gender: 'female' })));
        expect(reads).to.equal(Array.from({ length: 20 }, () => [personId]));
        await reader.close();
    });

    it('fails a read whose SQL the database refuses, and reads on', async () => {

        const reader = listReader(server.app.services.sequelize);
        await expect(reader.read({ sql: 'SELECT no_such_column AS "rows" FROM "persons"', bind: [] })).to.reject();
        expect(await idsRead(reader, {})).to.equal([personId]);
        await reader.close();
    });

    it('keeps a bounded number of statements prepared on a PostgreSQL connection, and runs any other unprepared', { skip: testVariant !== 'postgres' }, async () => {

        const single = new Sequelize(server.app.services.config.databaseUrl, { dialect: 'postgres', logging: false, pool: { max: 1 } });
        const reader = listReader(single);
        const preparedCount = async () => Number((await single.query('SELECT count(*) AS "count" FROM pg_prepared_statements', { type: QueryTypes.SELECT }) as [{ count: string }])[0].count);
        try {
            // Each set of filters is a text of its own: a client can ask for as many as it likes.
            for (let round = 0; round < 2; ++round) {
                for (const filters of filterSubsets(preparedPerConnection + 20)) {
                    expect(await idsRead(reader, filters)).to.equal(idsMatching(filters));
                }
            }

            expect(await preparedCount()).to.equal(preparedPerConnection);
        }
        finally {
            await reader.close();
            await single.close();
        }
    });

    it('reads timestamps whatever date style the server or the role defaults to', { skip: testVariant !== 'postgres' }, async () => {

        // A role of its own whose default style writes `21/11/2026 09:00:00 UTC`; a member of the test's role, to read its tables.
        const { sequelize, config } = server.app.services;
        const role = `fr_test_dmy_${Crypto.randomBytes(6).toString('hex')}`;
        const url = new URL(config.databaseUrl);
        await sequelize.query(`CREATE ROLE "${role}" LOGIN IN ROLE "${url.username}"`);
        await sequelize.query(`ALTER ROLE "${role}" SET datestyle = 'SQL, DMY'`);
        url.username = role;
        const asRole = openDatabase(url.toString());
        const reader = listReader(asRole);
        try {
            expect(await asRole.query('SHOW datestyle', { type: QueryTypes.SELECT })).to.equal([{ DateStyle: 'ISO, DMY' }]);
            const read = await listedRecords(reader, 'postgres', persons)(listStatement(persons, options({}), 'postgres', 10));
            const person = dataOf(await family.inject('GET', `/api/v1/persons/${personId}`));
            expect(read.map((record) => [record.created_at, record.updated_at])).to.equal([[person.created_at, person.updated_at]]);
        }
        finally {
            await reader.close();
            await asRole.close();
            await sequelize.query(`DROP ROLE "${role}"`);
        }
    });

    it('lets PostgreSQL keep one plan for a list statement, not plan every page anew, whatever the family\'s size', { skip: testVariant !== 'postgres' }, async () => {

        // A family far larger than the others, analysed: its own plan costs far less than the one plan for any family.
        const large = await familyWithKey(server);
        await insertPersons(server, large.familyLongId, 5000, (index) => ({ first_name: `Person ${index}`, last_name: 'Planned' }));
        const { models, sequelize } = server.app.services;
        const small = Array.from({ length: 200 }, (_, index) => `fam_plan_${index}_${large.familyLongId.slice(4, 20)}`);
        await models.Family.bulkCreate(small.map((familyLongId) => ({ family_long_id: familyLongId, name: familyLongId, plan: 'family' })));
        for (const familyLongId of small) {
            await insertPersons(server, familyLongId, 10, (index) => ({ first_name: `Person ${index}`, last_name: 'Small' }));
        }

        await sequelize.query('ANALYZE persons');
        // The service's own settings; nothing else uses this Sequelize, so its reads and the question share one connection.
        const single = openDatabase(server.app.services.config.databaseUrl);
        const reader = listReader(single);
        try {
            for (let read = 0; read < 8; ++read) {
                const { rows } = await reader.read(listStatement(persons, { familyLongId: large.familyLongId, sort: 'created_at', direction: 'asc', filters: {} }, 'postgres', 51));
                expect(JSON.parse(rows)).to.have.length(51);
            }

            const plans = await single.query('SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE \'records_list_%\'', { type: QueryTypes.SELECT }) as { generic_plans: string; custom_plans: string }[];
            expect(plans.map((plan) => [Number(plan.generic_plans), Number(plan.custom_plans)])).to.equal([[8, 0]]);
        }
        finally {
            await reader.close();
            await single.close();
        }
    });
});
