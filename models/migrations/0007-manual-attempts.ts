import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * A delivery counts the attempts made by hand (redeliveries, a test event's own) apart from
 * its total, so that the retry schedule counts only the queue's. Filled from the attempt log
 * for the deliveries made before, so a pending one gets back the retries its redeliveries took.
 * Frozen as it was at this migration, like every migration.
 */

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.addColumn('webhook_deliveries', 'manual_attempts', { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 });
    await queryInterface.sequelize.query(`UPDATE "webhook_deliveries" SET "manual_attempts" = (
        SELECT count(*) FROM "webhook_attempts" WHERE "webhook_attempts"."delivery_id" = "webhook_deliveries"."id" AND "webhook_attempts"."trigger" <> 'queue')`);
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.removeColumn('webhook_deliveries', 'manual_attempts');
}
