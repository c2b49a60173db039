import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { textLimits } from '../lib/text-limits';

/**
 * Where a family's change events are POSTed. The signing secret is kept encrypted
 * (AES-256-GCM under a key derived from the master secret): unlike an API key it
 * cannot be stored as a hash, because every delivery is signed with it.
 */
export class WebhookEndpoint extends Model<InferAttributes<WebhookEndpoint>, InferCreationAttributes<WebhookEndpoint>> {
    /** Opaque id (`whe_…`). */
    declare id: string;
    declare family_long_id: string;
    /** The HTTPS URL deliveries go to, as the manager gave it. */
    declare url: string;
    declare description: CreationOptional<string | null>;
    /** The resources whose changes are delivered (within those the family exposes). */
    declare resources: string[];
    /** False while disabled: nothing new is queued and nothing pending is sent. */
    declare active: CreationOptional<boolean>;
    declare disabled_at: CreationOptional<Date | null>;
    /** Why, shown to the family's managers (`410 Gone`, failing for days, or a manager's choice). */
    declare disabled_reason: CreationOptional<string | null>;
    /** `system`, a user id, or `cli`. */
    declare disabled_by: CreationOptional<string | null>;
    /** The signing secret (`whsec_…`), encrypted. */
    declare secret_encrypted: string;
    /** The last four characters of the secret, safe to show. */
    declare secret_last_four: string;
    /** The secret before the last rotation, encrypted; it signs too until previous_secret_expires_at. */
    declare previous_secret_encrypted: CreationOptional<string | null>;
    declare previous_secret_expires_at: CreationOptional<Date | null>;
    /** Start of the current run of failed attempts; null after a success. */
    declare failing_since: CreationOptional<Date | null>;
    /** The newest change event when it was created: only later events are delivered to it. */
    declare created_after_event_id: number;
    /** Who created it (user id, or `cli`). */
    declare created_by: string;
    declare created_at: CreationOptional<Date>;
    declare updated_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof WebhookEndpoint {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends WebhookEndpoint {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            url: { type: DataTypes.STRING(textLimits.webhookUrl), allowNull: false },
            description: { type: DataTypes.STRING(textLimits.webhookDescription), allowNull: true },
            resources: { type: DataTypes.JSON, allowNull: false },
            active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
            disabled_at: { type: DataTypes.DATE, allowNull: true },
            disabled_reason: { type: DataTypes.TEXT, allowNull: true },
            disabled_by: { type: DataTypes.STRING(64), allowNull: true },
            secret_encrypted: { type: DataTypes.TEXT, allowNull: false },
            secret_last_four: { type: DataTypes.STRING(4), allowNull: false },
            previous_secret_encrypted: { type: DataTypes.TEXT, allowNull: true },
            previous_secret_expires_at: { type: DataTypes.DATE, allowNull: true },
            failing_since: { type: DataTypes.DATE, allowNull: true },
            created_after_event_id: { type: DataTypes.BIGINT, allowNull: false, get() {

                return Number(this.getDataValue('created_after_event_id'));     // PostgreSQL returns BIGINT as text
            } },
            created_by: { type: DataTypes.STRING(64), allowNull: false },
            created_at: DataTypes.DATE,
            updated_at: DataTypes.DATE
        }, { sequelize, modelName: 'WebhookEndpoint', tableName: 'webhook_endpoints', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    }
}
