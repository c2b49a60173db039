import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * The hosted site: two-factor sign-in on users, server-side sign-in sessions, the
 * audit log of manager and super-admin actions, and the gateway's usage counters.
 * Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    const isPostgres = queryInterface.sequelize.getDialect() === 'postgres';

    await queryInterface.addColumn('users', 'totp_secret', { type: DataTypes.TEXT, allowNull: true });
    await queryInterface.addColumn('users', 'totp_enabled_at', { type: DataTypes.DATE, allowNull: true });
    await queryInterface.addColumn('users', 'recovery_code_hashes', { type: DataTypes.JSON, allowNull: true });

    await queryInterface.createTable('site_sessions', {
        id_hash: { type: DataTypes.STRING(64), primaryKey: true },
        user_id: { type: DataTypes.STRING(32), allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
        two_factor_pending: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        ip: { type: DataTypes.STRING(64), allowNull: true },
        user_agent: { type: DataTypes.STRING(300), allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        expires_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('site_sessions', ['user_id']);
    await queryInterface.addIndex('site_sessions', ['expires_at']);

    await queryInterface.createTable('audit_events', {
        // SQLite only auto-increments an INTEGER PRIMARY KEY.
        id: { type: isPostgres ? DataTypes.BIGINT : DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        occurred_at: { type: DataTypes.DATE, allowNull: false },
        actor_id: { type: DataTypes.STRING(32), allowNull: true },
        actor_email: { type: DataTypes.STRING(320), allowNull: true },
        action: { type: DataTypes.STRING(64), allowNull: false },
        family_long_id: { type: DataTypes.STRING(64), allowNull: true },
        target: { type: DataTypes.STRING(64), allowNull: true },
        detail: { type: DataTypes.TEXT, allowNull: true },
        ip: { type: DataTypes.STRING(64), allowNull: true },
        user_agent: { type: DataTypes.STRING(300), allowNull: true }
    });
    await queryInterface.addIndex('audit_events', ['occurred_at']);
    await queryInterface.addIndex('audit_events', ['family_long_id', 'occurred_at']);

    await queryInterface.createTable('usage_counters', {
        hour: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
        key_id: { type: DataTypes.STRING(32), allowNull: false, primaryKey: true },
        route_group: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
        route: { type: DataTypes.STRING(200), allowNull: false, primaryKey: true },
        status_class: { type: DataTypes.STRING(3), allowNull: false, primaryKey: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false },
        requests: { type: DataTypes.INTEGER, allowNull: false }
    });
    await queryInterface.addIndex('usage_counters', ['family_long_id', 'hour']);
    await queryInterface.addIndex('usage_counters', ['hour']);
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.dropTable('usage_counters');
    await queryInterface.dropTable('audit_events');
    await queryInterface.dropTable('site_sessions');
    await queryInterface.removeColumn('users', 'recovery_code_hashes');
    await queryInterface.removeColumn('users', 'totp_enabled_at');
    await queryInterface.removeColumn('users', 'totp_secret');
}
