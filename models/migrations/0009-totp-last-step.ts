import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * The last TOTP time step a user's code was accepted for: a code is taken once, and none of an
 * earlier step after it (RFC 6238 §5.2). Null for everyone before: their next code is taken.
 * Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.addColumn('users', 'totp_last_step', { type: DataTypes.INTEGER, allowNull: true });
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.removeColumn('users', 'totp_last_step');
}
