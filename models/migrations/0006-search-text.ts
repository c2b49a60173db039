import { DataTypes, QueryTypes, type QueryInterface } from 'sequelize';

import { searchText, searchTextColumn } from '../search-text';

/*
 * Free-text search ignores case and accents on both databases (models/search-text.ts): every
 * resource table gains `search_text`, its searchable fields folded, which the models write from
 * now on; here it is filled for the rows written before. Frozen as it was at this migration, like
 * every migration: the tables and their searchable fields then. Making another field searchable
 * takes a migration that fills the column again.
 */

export const searchableFields: Readonly<Record<string, readonly string[]>> = {
    trees: ['name', 'description'],
    persons: ['first_name', 'last_name', 'birth_name', 'birth_place', 'death_place', 'notes'],
    gallery_items: ['title', 'description', 'place'],
    events: ['title', 'place', 'description'],
    projects: ['title', 'owner', 'description'],
    finances: ['description', 'category', 'notes'],
    documents: ['title', 'category', 'description'],
    history_entries: ['title', 'period', 'place', 'body']
};

/** Rows read and written at a time: memory stays bounded whatever the size of a table. */
export const fillBatchSize = 500;

/**
 * Writes the search text of every row of `table`, one batch at a time in the order of ids (each
 * batch one UPDATE in its own transaction). Running it again writes the same texts.
 */
async function fillSearchText(queryInterface: QueryInterface, table: string, fields: readonly string[]): Promise<void> {

    const { sequelize } = queryInterface;
    const columns = ['id', ...fields].map((name) => `"${name}"`).join(', ');
    let after = '';
    for (;;) {
        const rows = await sequelize.query<Record<string, unknown> & { id: string }>(
            `SELECT ${columns} FROM "${table}" WHERE "id" > $1 ORDER BY "id" LIMIT ${fillBatchSize}`,
            { bind: [after], type: QueryTypes.SELECT });

        if (rows.length === 0) {
            return;
        }

        // UPDATE … FROM (VALUES …): one statement per batch, on SQLite (3.33+) and PostgreSQL alike.
        const bind = rows.flatMap((row) => [row.id, searchText(row, fields)]);
        const values = rows.map((_row, index) => `($${2 * index + 1}, $${2 * index + 2})`).join(', ');
        await sequelize.transaction((transaction) => sequelize.query(
            `UPDATE "${table}" SET "${searchTextColumn}" = "folded"."column2" FROM (VALUES ${values}) AS "folded" WHERE "${table}"."id" = "folded"."column1"`,
            { bind, transaction }));

        after = rows[rows.length - 1].id;
    }
}

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    for (const [table, fields] of Object.entries(searchableFields)) {
        // A run stopped midway (the fill of a large table is long) left the column: it is filled again.
        if (!(searchTextColumn in await queryInterface.describeTable(table))) {
            await queryInterface.addColumn(table, searchTextColumn, { type: DataTypes.TEXT, allowNull: true });
        }

        await fillSearchText(queryInterface, table, fields);
    }
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    for (const table of Object.keys(searchableFields)) {
        await queryInterface.removeColumn(table, searchTextColumn);
    }
}
