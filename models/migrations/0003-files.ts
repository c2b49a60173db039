import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * Gallery items and documents carry an uploaded file: where the storage keeps it and its
 * SHA-256 (both server-internal, never in the API). Storage is content-addressed, so
 * records may share a blob; the storage_key index finds a blob's remaining references
 * before it is removed. Frozen as it was at this migration, like every migration.
 */

const fileTables = ['gallery_items', 'documents'];

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    for (const table of fileTables) {
        await queryInterface.addColumn(table, 'storage_key', { type: DataTypes.STRING(200), allowNull: true });
        await queryInterface.addColumn(table, 'sha256', { type: DataTypes.STRING(64), allowNull: true });
        await queryInterface.addIndex(table, ['storage_key']);
    }
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    for (const table of fileTables) {
        await queryInterface.removeIndex(table, ['storage_key']);
        await queryInterface.removeColumn(table, 'sha256');
        await queryInterface.removeColumn(table, 'storage_key');
    }
}
