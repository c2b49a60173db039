import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * What an API key sees of living persons: `full`, or `redacted` (names shown as "Living"; dates,
 * places, notes removed). Every key before it keeps seeing everything: the default is `full`.
 * Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.addColumn('api_keys', 'living_persons', { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'full' });
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.removeColumn('api_keys', 'living_persons');
}
