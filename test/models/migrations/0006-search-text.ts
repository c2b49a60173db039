import { expect } from '@hapi/code';
import * as Lab from '@hapi/lab';
import { QueryTypes, type Sequelize } from 'sequelize';

import { fillBatchSize, searchableFields, up } from '../../../models/migrations/0006-search-text';
import { fieldNamesWhere, resourceNames, resources } from '../../../models/resources';
import { searchText } from '../../../models/search-text';
import { listStatement } from '../../../plugins/records/list-sql';
import { migrator, withEmptyDatabase } from '../../helpers/migrations';
import { testVariant } from '../../helpers/server';

export const lab = Lab.script();
const { describe, it } = lab;

const familyLongId = 'fam_migrated';
const at = new Date('2025-01-02T03:04:05.678Z');

/** Rows as the service wrote them before 0006: accented and non-Latin text in every searchable field, some empty. */
function rowsBefore(table: string, count: number): Record<string, unknown>[] {

    const names = ['Émile', 'Østergaard', 'Ἀλέξανδρος', 'Иван', 'Müller', null];
    return Array.from({ length: count }, (_, index) => ({
        id: `row_${String(index).padStart(6, '0')}`,
        family_long_id: familyLongId,
        revision: 1,
        created_at: at,
        updated_at: at,
        ...Object.fromEntries(searchableFields[table].map((field, position) => [field, names[(index + position) % names.length]]))
    }));
}

async function insertRowsBefore(sequelize: Sequelize, personCount: number): Promise<void> {

    const queryInterface = sequelize.getQueryInterface();
    await queryInterface.bulkInsert('families', [{ family_long_id: familyLongId, name: 'Migrated', plan: 'family', api_enabled: false, api_resources: '[]', created_at: at, updated_at: at }]);
    for (const table of Object.keys(searchableFields)) {
        await queryInterface.bulkInsert(table, rowsBefore(table, table === 'persons' ? personCount : 3));
    }
}

const storedTexts = (sequelize: Sequelize, table: string) => sequelize.query<Record<string, unknown> & { id: string; search_text: string | null }>(`SELECT * FROM "${table}" ORDER BY "id"`, { type: QueryTypes.SELECT });

describe(`migration 0006-search-text on ${testVariant}`, () => {

    it('froze the searchable fields the declarations have: making another field searchable needs a migration that fills search_text again', () => {

        expect(Object.fromEntries(resourceNames.map((name) => [resources[name].table, fieldNamesWhere(resources[name],
            (field) => field.searchable)]))).to.equal(searchableFields as Record<string, string[]>);
    });

    it('fills search_text of the rows written before it, batch after batch, as the models write it', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0005-site' });
            await insertRowsBefore(sequelize, 2 * fillBatchSize + 1);
            await umzug.up();

            for (const name of resourceNames) {
                const rows = await storedTexts(sequelize, resources[name].table);
                expect(rows).to.have.length(name === 'persons' ? 2 * fillBatchSize + 1 : 3);
                for (const row of rows) {
                    expect(row.search_text, `${name} ${row.id}`).to.equal(searchText(row, fieldNamesWhere(resources[name], (field) => field.searchable)));
                }
            }

            // The list statement finds them, ignoring case and accents.
            const { sql, bind } = listStatement(resources.persons, { familyLongId, search: 'EMILE ostergaard', sort: 'created_at', direction: 'asc', filters: {} }, testVariant, 10_000);
            const [{ rows: page }] = await sequelize.query<{ rows: string }>(sql, { bind, type: QueryTypes.SELECT });
            const found = (JSON.parse(page) as unknown[][]).map(([id]) => id);
            const expected = (await storedTexts(sequelize, 'persons')).filter((row) => row.search_text!.includes('emile') && row.search_text!.includes('ostergaard')).map((row) => row.id);
            expect(found.length).to.be.above(fillBatchSize);
            expect(found.sort()).to.equal(expected);
        });
    });

    it('fills the column again when run over a table that already has it (a run stopped midway)', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up({ to: '0005-site' });
            await insertRowsBefore(sequelize, 3);
            await umzug.up();
            await sequelize.query('UPDATE "persons" SET "search_text" = NULL');

            await up({ context: sequelize.getQueryInterface() });
            for (const row of await storedTexts(sequelize, 'persons')) {
                expect(row.search_text).to.equal(searchText(row, searchableFields.persons));
            }
        });
    });

    it('is undone by down()', async () => {

        await withEmptyDatabase(async (sequelize) => {

            const umzug = migrator(sequelize);
            await umzug.up();
            await umzug.down({ to: '0006-search-text' });
            for (const table of Object.keys(searchableFields)) {
                expect(await sequelize.getQueryInterface().describeTable(table)).to.not.include('search_text');
            }
        });
    });
});
