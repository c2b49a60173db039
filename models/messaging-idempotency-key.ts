import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/**
 * A messaging write sent with an `Idempotency-Key`, per device and route: taken before the write
 * runs (a retry meanwhile is 409), its answer stored once it has one (the same key again replays it).
 */
export class MessagingIdempotencyKey extends Model<InferAttributes<MessagingIdempotencyKey>, InferCreationAttributes<MessagingIdempotencyKey>> {
    /** The device (`dev_…`) that sent it; the site's pages use `site:` and the user id. */
    declare grant_id: string;
    /** The route: method and path template. */
    declare route: string;
    declare idempotency_key: string;
    /** Hex SHA-256 of the path and the canonical body: the same key with another request is refused. */
    declare fingerprint: string;
    /** Null while the first request runs. */
    declare response_status: CreationOptional<number | null>;
    declare response_body: CreationOptional<string | null>;
    /** JSON of the headers replayed (Location, ETag). */
    declare response_headers: CreationOptional<string | null>;
    declare created_at: Date;

    static define(sequelize: Sequelize): typeof MessagingIdempotencyKey {

        return (class extends MessagingIdempotencyKey {}).init({
            grant_id: { type: DataTypes.STRING(32), primaryKey: true },
            route: { type: DataTypes.STRING(200), primaryKey: true },
            idempotency_key: { type: DataTypes.STRING(255), primaryKey: true },
            fingerprint: { type: DataTypes.STRING(64), allowNull: false },
            response_status: { type: DataTypes.INTEGER, allowNull: true },
            response_body: { type: DataTypes.TEXT, allowNull: true },
            response_headers: { type: DataTypes.TEXT, allowNull: true },
            created_at: { type: DataTypes.DATE, allowNull: false }
        }, { sequelize, modelName: 'MessagingIdempotencyKey', tableName: 'messaging_idempotency_keys', timestamps: false });
    }
}
