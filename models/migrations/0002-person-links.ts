import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * Persons link to their parents and spouse, so a family tree is a tree (GEDCOM exports derive
 * its families from these links). Frozen as it was at this migration, like every migration.
 */

const linkColumns = ['parent_1_id', 'parent_2_id', 'spouse_id'];

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    for (const column of linkColumns) {
        await queryInterface.addColumn('persons', column, { type: DataTypes.STRING(32), allowNull: true });
    }
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    for (const column of linkColumns) {
        await queryInterface.removeColumn('persons', column);
    }
}
