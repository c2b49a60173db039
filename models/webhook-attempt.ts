import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export type AttemptTrigger = 'queue' | 'redeliver' | 'ping';

/** A 2xx answer delivers; any other, a redirect included, does not. */
export const isDelivered = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** One try at sending a delivery: the delivery log's rows. */
export class WebhookAttempt extends Model<InferAttributes<WebhookAttempt>, InferCreationAttributes<WebhookAttempt>> {
    declare id: CreationOptional<number>;
    declare delivery_id: string;
    declare endpoint_id: string;
    /** 1 for the first attempt of the delivery. */
    declare attempt: number;
    /** What made it: the queue (first try and retries), a manager's redelivery, or a test delivery. */
    declare trigger: AttemptTrigger;
    /** The HTTP status received; null when none came (refused destination, timeout, connection error). */
    declare status_code: number | null;
    declare latency_ms: number;
    /** What went wrong, in words; null on success. */
    declare error: string | null;
    /** The start of the response body (capped by policy). */
    declare response_excerpt: string | null;
    /** The checked address the request went to. */
    declare address: string | null;
    declare started_at: Date;

    static define(sequelize: Sequelize): typeof WebhookAttempt {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends WebhookAttempt {}).init({
            id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, get() {

                return Number(this.getDataValue('id'));     // PostgreSQL returns BIGINT as text
            } },
            delivery_id: { type: DataTypes.STRING(32), allowNull: false },
            endpoint_id: { type: DataTypes.STRING(32), allowNull: false },
            attempt: { type: DataTypes.INTEGER, allowNull: false },
            trigger: { type: DataTypes.STRING(16), allowNull: false },
            status_code: { type: DataTypes.INTEGER, allowNull: true },
            latency_ms: { type: DataTypes.INTEGER, allowNull: false },
            error: { type: DataTypes.TEXT, allowNull: true },
            response_excerpt: { type: DataTypes.TEXT, allowNull: true },
            address: { type: DataTypes.STRING(64), allowNull: true },
            started_at: { type: DataTypes.DATE, allowNull: false }
        }, { sequelize, modelName: 'WebhookAttempt', tableName: 'webhook_attempts', timestamps: false });
    }
}
