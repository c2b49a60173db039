import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * Messaging between the users of one family: conversations and their members, messages, social
 * blocks, the messaging change log (the recovery stream and sync read it), the conflicts of refused
 * outbox items, and the answers of writes sent with an Idempotency-Key.
 * Frozen as it was at this migration, like every migration.
 */

const family = { type: DataTypes.STRING(64), allowNull: false, references: { model: 'families', key: 'family_long_id' }, onDelete: 'CASCADE' };
const user = { type: DataTypes.STRING(32), allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' };

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.createTable('conversations', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        family_long_id: family,
        kind: { type: DataTypes.STRING(16), allowNull: false },
        title: { type: DataTypes.TEXT, allowNull: true },
        created_by: { type: DataTypes.STRING(32), allowNull: false },
        direct_key: { type: DataTypes.STRING(80), allowNull: true },
        revision: { type: DataTypes.INTEGER, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false },
        last_message_at: { type: DataTypes.DATE, allowNull: true }
    });
    await queryInterface.addIndex('conversations', ['family_long_id', 'direct_key'], { unique: true, name: 'conversations_direct_pair' });

    await queryInterface.createTable('conversation_members', {
        conversation_id: { type: DataTypes.STRING(32), primaryKey: true, references: { model: 'conversations', key: 'id' }, onDelete: 'CASCADE' },
        user_id: { ...user, primaryKey: true },
        family_long_id: family,
        added_by: { type: DataTypes.STRING(32), allowNull: false },
        joined_at: { type: DataTypes.DATE, allowNull: false },
        last_read_at: { type: DataTypes.DATE, allowNull: true }
    });
    await queryInterface.addIndex('conversation_members', ['user_id']);

    await queryInterface.createTable('messages', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        conversation_id: { type: DataTypes.STRING(32), allowNull: false, references: { model: 'conversations', key: 'id' }, onDelete: 'CASCADE' },
        family_long_id: family,
        sender_id: { type: DataTypes.STRING(32), allowNull: false },
        body: { type: DataTypes.TEXT, allowNull: true },
        attachments: { type: DataTypes.JSON, allowNull: false },
        revision: { type: DataTypes.INTEGER, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
        edited_at: { type: DataTypes.DATE, allowNull: true },
        deleted_at: { type: DataTypes.DATE, allowNull: true },
        client_time: { type: DataTypes.DATE, allowNull: true }
    });
    await queryInterface.addIndex('messages', ['conversation_id', 'created_at', 'id']);

    await queryInterface.createTable('user_blocks', {
        blocker_id: { ...user, primaryKey: true },
        blocked_id: { ...user, primaryKey: true },
        family_long_id: family,
        created_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('user_blocks', ['blocked_id']);

    await queryInterface.createTable('messaging_changes', {
        id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false },
        conversation_id: { type: DataTypes.STRING(32), allowNull: true },
        user_id: { type: DataTypes.STRING(32), allowNull: true },
        kind: { type: DataTypes.STRING(16), allowNull: false },
        action: { type: DataTypes.STRING(16), allowNull: false },
        record_id: { type: DataTypes.STRING(32), allowNull: false },
        revision: { type: DataTypes.INTEGER, allowNull: false },
        occurred_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('messaging_changes', ['family_long_id', 'id']);
    await queryInterface.addIndex('messaging_changes', ['occurred_at']);

    await queryInterface.createTable('messaging_conflicts', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        family_long_id: family,
        user_id: user,
        grant_id: { type: DataTypes.STRING(32), allowNull: true },
        conversation_id: { type: DataTypes.STRING(32), allowNull: true },
        reason: { type: DataTypes.STRING(32), allowNull: false },
        message: { type: DataTypes.TEXT, allowNull: false },
        item: { type: DataTypes.JSON, allowNull: false },
        after_message_id: { type: DataTypes.STRING(32), allowNull: true },
        status: { type: DataTypes.STRING(16), allowNull: false },
        resolution: { type: DataTypes.STRING(16), allowNull: true },
        revision: { type: DataTypes.INTEGER, allowNull: false },
        created_at: { type: DataTypes.DATE, allowNull: false },
        resolved_at: { type: DataTypes.DATE, allowNull: true }
    });
    await queryInterface.addIndex('messaging_conflicts', ['user_id', 'status']);

    await queryInterface.createTable('messaging_idempotency_keys', {
        grant_id: { type: DataTypes.STRING(32), primaryKey: true },
        route: { type: DataTypes.STRING(200), primaryKey: true },
        idempotency_key: { type: DataTypes.STRING(255), primaryKey: true },
        fingerprint: { type: DataTypes.STRING(64), allowNull: false },
        response_status: { type: DataTypes.INTEGER, allowNull: true },
        response_body: { type: DataTypes.TEXT, allowNull: true },
        response_headers: { type: DataTypes.TEXT, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('messaging_idempotency_keys', ['created_at']);
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    for (const table of ['messaging_idempotency_keys', 'messaging_conflicts', 'messaging_changes', 'user_blocks', 'messages', 'conversation_members', 'conversations']) {
        await queryInterface.dropTable(table);
    }
}
