import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * Resumable uploads (tus) of message attachments: who uploads, what was declared, how far the bytes
 * have come, and the message that holds the file once sent. Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.createTable('messaging_uploads', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false, references: { model: 'families', key: 'family_long_id' }, onDelete: 'CASCADE' },
        user_id: { type: DataTypes.STRING(32), allowNull: false, references: { model: 'users', key: 'id' }, onDelete: 'CASCADE' },
        grant_id: { type: DataTypes.STRING(32), allowNull: true, references: { model: 'device_grants', key: 'id' }, onDelete: 'SET NULL' },
        file_name: { type: DataTypes.STRING(255), allowNull: false },
        declared_type: { type: DataTypes.STRING(255), allowNull: true },
        length_bytes: { type: DataTypes.BIGINT, allowNull: false },
        offset_bytes: { type: DataTypes.BIGINT, allowNull: false, defaultValue: 0 },
        media_type: { type: DataTypes.STRING(255), allowNull: true },
        completed_at: { type: DataTypes.DATE, allowNull: true },
        expires_at: { type: DataTypes.DATE, allowNull: false },
        message_id: { type: DataTypes.STRING(32), allowNull: true },
        attached_at: { type: DataTypes.DATE, allowNull: true },
        created_at: { type: DataTypes.DATE, allowNull: false },
        updated_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('messaging_uploads', ['family_long_id']);
    await queryInterface.addIndex('messaging_uploads', ['user_id']);
    await queryInterface.addIndex('messaging_uploads', ['expires_at']);
    await queryInterface.addIndex('messaging_uploads', ['message_id']);
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.dropTable('messaging_uploads');
}
