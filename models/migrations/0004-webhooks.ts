import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * Webhooks: the endpoints of each family, the durable delivery queue fed from
 * change_events (one row per event and endpoint, unique, so fanning out twice
 * queues nothing twice), and the log of every attempt. Frozen as it was at this
 * migration, like every migration.
 */

const timestamps = {
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false }
};

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    const isPostgres = queryInterface.sequelize.getDialect() === 'postgres';

    await queryInterface.createTable('webhook_endpoints', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false, references: { model: 'families', key: 'family_long_id' }, onDelete: 'CASCADE' },
        url: { type: DataTypes.STRING(2048), allowNull: false },
        description: { type: DataTypes.STRING(500), allowNull: true },
        resources: { type: DataTypes.JSON, allowNull: false },
        active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        disabled_at: { type: DataTypes.DATE, allowNull: true },
        disabled_reason: { type: DataTypes.TEXT, allowNull: true },
        disabled_by: { type: DataTypes.STRING(64), allowNull: true },
        secret_encrypted: { type: DataTypes.TEXT, allowNull: false },
        secret_last_four: { type: DataTypes.STRING(4), allowNull: false },
        previous_secret_encrypted: { type: DataTypes.TEXT, allowNull: true },
        previous_secret_expires_at: { type: DataTypes.DATE, allowNull: true },
        failing_since: { type: DataTypes.DATE, allowNull: true },
        created_after_event_id: { type: DataTypes.BIGINT, allowNull: false },
        created_by: { type: DataTypes.STRING(64), allowNull: false },
        ...timestamps
    });
    await queryInterface.addIndex('webhook_endpoints', ['family_long_id']);

    await queryInterface.createTable('webhook_deliveries', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        endpoint_id: { type: DataTypes.STRING(32), allowNull: false, references: { model: 'webhook_endpoints', key: 'id' }, onDelete: 'CASCADE' },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false },
        event_id: { type: DataTypes.BIGINT, allowNull: true },
        event_type: { type: DataTypes.STRING(64), allowNull: false },
        payload: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        next_attempt_at: { type: DataTypes.DATE, allowNull: true },
        locked_until: { type: DataTypes.DATE, allowNull: true },
        lock_token: { type: DataTypes.STRING(32), allowNull: true },
        last_status_code: { type: DataTypes.INTEGER, allowNull: true },
        last_error: { type: DataTypes.TEXT, allowNull: true },
        delivered_at: { type: DataTypes.DATE, allowNull: true },
        ...timestamps
    });
    // One delivery per event and endpoint, whoever fans out and however often (test deliveries have no event).
    await queryInterface.addIndex('webhook_deliveries', ['endpoint_id', 'event_id'], { unique: true });
    // The queue: due pending deliveries, oldest first.
    await queryInterface.addIndex('webhook_deliveries', ['status', 'next_attempt_at']);
    // The log of one endpoint, newest first; and the clean-up of old ones.
    await queryInterface.addIndex('webhook_deliveries', ['endpoint_id', 'created_at']);
    await queryInterface.addIndex('webhook_deliveries', ['created_at']);

    await queryInterface.createTable('webhook_attempts', {
        // SQLite only auto-increments an INTEGER PRIMARY KEY.
        id: { type: isPostgres ? DataTypes.BIGINT : DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        delivery_id: { type: DataTypes.STRING(32), allowNull: false, references: { model: 'webhook_deliveries', key: 'id' }, onDelete: 'CASCADE' },
        endpoint_id: { type: DataTypes.STRING(32), allowNull: false },
        attempt: { type: DataTypes.INTEGER, allowNull: false },
        trigger: { type: DataTypes.STRING(16), allowNull: false },
        status_code: { type: DataTypes.INTEGER, allowNull: true },
        latency_ms: { type: DataTypes.INTEGER, allowNull: false },
        error: { type: DataTypes.TEXT, allowNull: true },
        response_excerpt: { type: DataTypes.TEXT, allowNull: true },
        address: { type: DataTypes.STRING(64), allowNull: true },
        started_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('webhook_attempts', ['delivery_id', 'attempt']);
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.dropTable('webhook_attempts');
    await queryInterface.dropTable('webhook_deliveries');
    await queryInterface.dropTable('webhook_endpoints');
}
