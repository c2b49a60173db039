import type { Server } from '@hapi/hapi';
import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes, Sequelize } from 'sequelize';

import { persons } from '../../../models/resources/persons';
import { listReader, preparedLimit, preparedPerConnection } from '../../../plugins/records/list-readers';
import { listStatement, type ListOptions } from '../../../plugins/records/list-sql';
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
    const idsRead = async (reader: ReturnType<typeof listReader>, filters: Record<string, unknown>) => (JSON.parse((await reader.read(listStatement(persons, options(filters), testVariant, 10))).rows) as unknown[][]).map((values) => values[0]);

    it('answers more distinct statement shapes than it keeps prepared, and again after evicting them, then closes', async () => {

        const reader = listReader(server.app.services.sequelize);
        const filterable = ['first_name', 'last_name', 'birth_name', 'gender', 'birth_date', 'birth_place', 'death_date', 'death_place', 'tree_id'];
        // Each subset of the filters is a statement of its own shape; every one that matches the person holds only matching values.
        const values: Record<string, unknown> = { first_name: 'Read', last_name: 'Directly', gender: 'female', birth_place: 'Lund' };
        const subsets = Array.from({ length: preparedLimit + 50 }, (_, index) => filterable.filter((_field, bit) => (index + 1) & (1 << bit)));
        for (const subset of [...subsets, ...subsets.slice(0, 20)]) {
            const filters = Object.fromEntries(subset.map((field) => [field, values[field] ?? 'other']));
            expect(await idsRead(reader, filters)).to.equal(subset.every((field) => field in values) ? [personId] : []);
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
            // Each page size is a text of its own (list-sql.ts): a client can ask for as many as it likes.
            for (let round = 0; round < 2; ++round) {
                for (let limit = 1; limit <= preparedPerConnection + 20; ++limit) {
                    const { rows } = await reader.read(listStatement(persons, options({ gender: 'female' }), 'postgres', limit));
                    expect(JSON.parse(rows).map((values: unknown[]) => values[0])).to.equal([personId]);
                }
            }

            expect(await preparedCount()).to.equal(preparedPerConnection);
        }
        finally {
            await reader.close();
            await single.close();
        }
    });

    it('lets PostgreSQL keep one plan for a list statement, not plan every page anew', { skip: testVariant !== 'postgres' }, async () => {

        // A family of some size, analysed: with a bound page size, PostgreSQL costed its one plan for a tenth of the table.
        const large = await familyWithKey(server);
        await insertPersons(server, large.familyLongId, 5000, (index) => ({ first_name: `Person ${index}`, last_name: 'Planned' }));
        await server.app.services.sequelize.query('ANALYZE persons');
        // One connection, so the reader's statements and the question about them share a session.
        const single = new Sequelize(server.app.services.config.databaseUrl, { dialect: 'postgres', logging: false, pool: { max: 1 } });
        const reader = listReader(single);
        try {
            for (let read = 0; read < 8; ++read) {
                const { rows } = await reader.read(listStatement(persons, { familyLongId: large.familyLongId, sort: 'created_at', direction: 'asc', filters: {} }, 'postgres', 51));
                expect(JSON.parse(rows)).to.have.length(51);
            }

            const [plans] = await single.query('SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE \'records_list_%\'', { type: QueryTypes.SELECT }) as [{ generic_plans: string; custom_plans: string }];
            // PostgreSQL tries custom plans first (five), then keeps the generic plan when it costs about as much.
            expect(Number(plans.generic_plans)).to.be.at.least(1);
            expect(Number(plans.custom_plans)).to.be.at.most(5);
        }
        finally {
            await reader.close();
            await single.close();
        }
    });
});
