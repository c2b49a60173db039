import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * A super-admin's suspension of a family's messaging, apart from the suspension of its API
 * (api_suspended_*): when, why (shown to the family) and by whom (a user id, or `cli`).
 * Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.addColumn('families', 'messaging_suspended_at', { type: DataTypes.DATE, allowNull: true });
    await queryInterface.addColumn('families', 'messaging_suspension_reason', { type: DataTypes.TEXT, allowNull: true });
    await queryInterface.addColumn('families', 'messaging_suspended_by', { type: DataTypes.STRING(64), allowNull: true });
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.removeColumn('families', 'messaging_suspended_by');
    await queryInterface.removeColumn('families', 'messaging_suspension_reason');
    await queryInterface.removeColumn('families', 'messaging_suspended_at');
}
