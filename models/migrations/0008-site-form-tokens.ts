import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * The one-time tokens of the hosted site's forms that show something once (a new API key, a
 * webhook signing secret, recovery codes), remembered once sent so that a reload does not do it again.
 * Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.createTable('site_form_tokens', {
        nonce: { type: DataTypes.STRING(32), primaryKey: true },
        sent_at: { type: DataTypes.DATE, allowNull: false },
        outcome: { type: DataTypes.TEXT, allowNull: true },
        expires_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('site_form_tokens', ['expires_at']);
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.dropTable('site_form_tokens');
}
