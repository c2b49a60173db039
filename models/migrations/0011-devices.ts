import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * Devices connected through the OAuth 2.0 device authorization grant: the requests waiting for a user's
 * approval, the grants approved, and their tokens (keyed hashes only); and users that can be disabled.
 * Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.addColumn('users', 'disabled_at', { type: DataTypes.DATE, allowNull: true });
    await queryInterface.createTable('device_requests', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        device_code_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        user_code: { type: DataTypes.STRING(8), allowNull: false, unique: true },
        client_id: { type: DataTypes.STRING(100), allowNull: false },
        device_name: { type: DataTypes.STRING(100), allowNull: false },
        scopes: { type: DataTypes.JSON, allowNull: false },
        requested_from: { type: DataTypes.STRING(64), allowNull: false },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        interval_seconds: { type: DataTypes.INTEGER, allowNull: false },
        last_polled_at: { type: DataTypes.DATE, allowNull: true },
        status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
        user_id: { type: DataTypes.STRING(32), allowNull: true, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
        decided_at: { type: DataTypes.DATE, allowNull: true },
        grant_id: { type: DataTypes.STRING(32), allowNull: true },
        tokens_issued_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('device_requests', ['expires_at']);
    await queryInterface.createTable('device_grants', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        user_id: { type: DataTypes.STRING(32), allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false, references: { model: 'families', key: 'family_long_id' }, onDelete: 'CASCADE' },
        client_id: { type: DataTypes.STRING(100), allowNull: false },
        device_name: { type: DataTypes.STRING(100), allowNull: false },
        scopes: { type: DataTypes.JSON, allowNull: false },
        approved_at: { type: DataTypes.DATE, allowNull: false },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        idle_expires_at: { type: DataTypes.DATE, allowNull: false },
        last_used_at: { type: DataTypes.DATE, allowNull: true },
        last_used_from: { type: DataTypes.STRING(64), allowNull: true },
        revoked_at: { type: DataTypes.DATE, allowNull: true },
        revoked_by: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('device_grants', ['user_id']);
    await queryInterface.addIndex('device_grants', ['family_long_id']);
    await queryInterface.createTable('device_tokens', {
        token_hash: { type: DataTypes.STRING(64), primaryKey: true },
        grant_id: { type: DataTypes.STRING(32), allowNull: false, references: { model: 'device_grants', key: 'id' }, onDelete: 'CASCADE' },
        kind: { type: DataTypes.STRING(16), allowNull: false },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        rotated_at: { type: DataTypes.DATE, allowNull: true },
        successor_hash: { type: DataTypes.STRING(64), allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('device_tokens', ['grant_id']);
    await queryInterface.addIndex('device_tokens', ['expires_at']);
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.dropTable('device_tokens');
    await queryInterface.dropTable('device_grants');
    await queryInterface.dropTable('device_requests');
    await queryInterface.removeColumn('users', 'disabled_at');
}
