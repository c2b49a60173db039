import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** One action of a family manager or super-admin on the hosted site: who, what, when, from where. */
export class AuditEvent extends Model<InferAttributes<AuditEvent>, InferCreationAttributes<AuditEvent>> {
    declare id: CreationOptional<number>;
    declare occurred_at: Date;
    /** The user who acted. */
    declare actor_id: string | null;
    /** Their email at the time, kept even if the user is deleted later. */
    declare actor_email: string | null;
    /** What happened, e.g. `api_key.revoke` (see plugins/site/audit-log.ts). */
    declare action: string;
    /** The family acted on, if any. */
    declare family_long_id: string | null;
    /** The key, webhook or user acted on, if any. */
    declare target: string | null;
    /** A readable detail: scopes granted, the suspension reason… */
    declare detail: string | null;
    declare ip: string | null;
    declare user_agent: string | null;

    static define(sequelize: Sequelize): typeof AuditEvent {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends AuditEvent {}).init({
            id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, get() {

                return Number(this.getDataValue('id'));     // PostgreSQL returns BIGINT as text
            } },
            occurred_at: { type: DataTypes.DATE, allowNull: false },
            actor_id: { type: DataTypes.STRING(32), allowNull: true },
            actor_email: { type: DataTypes.STRING(320), allowNull: true },
            action: { type: DataTypes.STRING(64), allowNull: false },
            family_long_id: { type: DataTypes.STRING(64), allowNull: true },
            target: { type: DataTypes.STRING(64), allowNull: true },
            detail: { type: DataTypes.TEXT, allowNull: true },
            ip: { type: DataTypes.STRING(64), allowNull: true },
            user_agent: { type: DataTypes.STRING(300), allowNull: true }
        }, { sequelize, modelName: 'AuditEvent', tableName: 'audit_events', timestamps: false });
    }
}
