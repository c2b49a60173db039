import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const changeActions = ['created', 'updated', 'deleted'] as const;
export type ChangeAction = typeof changeActions[number];

/**
 * The change log (transactional outbox): one row per create, update and delete,
 * written in the same transaction as the change. The stream and webhooks read it.
 */
export class ChangeEvent extends Model<InferAttributes<ChangeEvent>, InferCreationAttributes<ChangeEvent>> {
    /** Monotonic event id; also the SSE `id:`. */
    declare id: CreationOptional<number>;
    declare family_long_id: string;
    /** Resource name, for example `persons`. */
    declare resource: string;
    declare action: ChangeAction;
    declare record_id: string;
    /** The record's revision after the change. */
    declare revision: number;
    declare occurred_at: Date;

    static define(sequelize: Sequelize): typeof ChangeEvent {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends ChangeEvent {}).init({
            id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, get() {

                return Number(this.getDataValue('id'));     // PostgreSQL returns BIGINT as text
            } },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            resource: { type: DataTypes.STRING(32), allowNull: false },
            action: { type: DataTypes.STRING(16), allowNull: false },
            record_id: { type: DataTypes.STRING(32), allowNull: false },
            revision: { type: DataTypes.INTEGER, allowNull: false },
            occurred_at: { type: DataTypes.DATE, allowNull: false }
        }, { sequelize, modelName: 'ChangeEvent', tableName: 'change_events', timestamps: false });
    }
}
