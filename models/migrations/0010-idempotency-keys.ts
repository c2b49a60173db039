import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * The answers to creates sent with an `Idempotency-Key`, one per API key and key text, written
 * in the create's own transaction so that a retry replays the answer instead of creating again.
 * Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.createTable('idempotency_keys', {
        api_key_id: { type: DataTypes.STRING(32), primaryKey: true, references: { model: 'api_keys', key: 'id' }, onDelete: 'CASCADE' },
        idempotency_key: { type: DataTypes.STRING(255), primaryKey: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false },
        method: { type: DataTypes.STRING(16), allowNull: false },
        path: { type: DataTypes.TEXT, allowNull: false },
        fingerprint: { type: DataTypes.STRING(64), allowNull: false },
        response_status: { type: DataTypes.INTEGER, allowNull: false },
        response_body: { type: DataTypes.TEXT, allowNull: false },
        response_location: { type: DataTypes.TEXT, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('idempotency_keys', ['created_at']);
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.dropTable('idempotency_keys');
}
