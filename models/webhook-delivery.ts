import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * One event for one endpoint: the durable queue entry and its log. Its id is the
 * delivery id receivers see (`X-Service-Delivery`, `webhook-id`), the same on every
 * attempt, so they can drop duplicates.
 */
export class WebhookDelivery extends Model<InferAttributes<WebhookDelivery>, InferCreationAttributes<WebhookDelivery>> {
    /** Opaque id (`whd_…`). */
    declare id: string;
    declare endpoint_id: string;
    declare family_long_id: string;
    /** The change event delivered; null for a test delivery (`ping`). Unique per endpoint. */
    declare event_id: number | null;
    /** `<resource>.<action>` or `ping`: the X-Service-Event header. */
    declare event_type: string;
    /** The JSON body, fixed when queued so every attempt sends (and signs) the same bytes. */
    declare payload: string;
    /** pending (queued or waiting for a retry), delivered, or failed (given up). */
    declare status: DeliveryStatus;
    /** Attempts made so far, counted when claimed (a crash mid-attempt counts). */
    declare attempts: CreationOptional<number>;
    /** Of those, the ones made by hand (redeliveries, a test event's): the retry schedule counts only the others. */
    declare manual_attempts: CreationOptional<number>;
    /** When a pending delivery is due. */
    declare next_attempt_at: CreationOptional<Date | null>;
    /** A worker's claim: until then no other worker takes it. */
    declare locked_until: CreationOptional<Date | null>;
    /** Which claim holds it, so a worker whose lease ran out cannot overwrite a newer claim's result. */
    declare lock_token: CreationOptional<string | null>;
    declare last_status_code: CreationOptional<number | null>;
    declare last_error: CreationOptional<string | null>;
    declare delivered_at: CreationOptional<Date | null>;
    declare created_at: CreationOptional<Date>;
    declare updated_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof WebhookDelivery {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends WebhookDelivery {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            endpoint_id: { type: DataTypes.STRING(32), allowNull: false },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            event_id: { type: DataTypes.BIGINT, allowNull: true, get() {

                const value = this.getDataValue('event_id');
                return value === null || value === undefined ? null : Number(value);     // PostgreSQL returns BIGINT as text
            } },
            event_type: { type: DataTypes.STRING(64), allowNull: false },
            payload: { type: DataTypes.TEXT, allowNull: false },
            status: { type: DataTypes.STRING(16), allowNull: false },
            attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
            manual_attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
            next_attempt_at: { type: DataTypes.DATE, allowNull: true },
            locked_until: { type: DataTypes.DATE, allowNull: true },
            lock_token: { type: DataTypes.STRING(32), allowNull: true },
            last_status_code: { type: DataTypes.INTEGER, allowNull: true },
            last_error: { type: DataTypes.TEXT, allowNull: true },
            delivered_at: { type: DataTypes.DATE, allowNull: true },
            created_at: DataTypes.DATE,
            updated_at: DataTypes.DATE
        }, { sequelize, modelName: 'WebhookDelivery', tableName: 'webhook_deliveries', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    }
}
