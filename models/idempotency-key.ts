import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/**
 * The answer to a create sent with an `Idempotency-Key`, written in the create's transaction:
 * the same key again from the same API key replays it (plugins/records/idempotency.ts).
 */
export class IdempotencyKey extends Model<InferAttributes<IdempotencyKey>, InferCreationAttributes<IdempotencyKey>> {
    /** The API key that sent it: keys are never shared between API keys. */
    declare api_key_id: string;
    /** The header's text, as the client chose it (a UUID, typically). */
    declare idempotency_key: string;
    declare family_long_id: string;
    declare method: string;
    declare path: string;
    /** Hex SHA-256 of the path and the canonical parsed body: the same key with another request is refused. */
    declare fingerprint: string;
    declare response_status: number;
    /** The JSON text that was sent. */
    declare response_body: string;
    declare response_location: string;
    /** Entries older than the retention are a new request's, and the cleanup deletes them. */
    declare created_at: Date;

    static define(sequelize: Sequelize): typeof IdempotencyKey {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends IdempotencyKey {}).init({
            api_key_id: { type: DataTypes.STRING(32), primaryKey: true },
            idempotency_key: { type: DataTypes.STRING(255), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            method: { type: DataTypes.STRING(16), allowNull: false },
            path: { type: DataTypes.TEXT, allowNull: false },
            fingerprint: { type: DataTypes.STRING(64), allowNull: false },
            response_status: { type: DataTypes.INTEGER, allowNull: false },
            response_body: { type: DataTypes.TEXT, allowNull: false },
            response_location: { type: DataTypes.TEXT, allowNull: false },
            created_at: { type: DataTypes.DATE, allowNull: false }
        }, { sequelize, modelName: 'IdempotencyKey', tableName: 'idempotency_keys', timestamps: false });
    }
}
