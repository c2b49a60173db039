import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const deviceTokenKinds = ['access', 'refresh'] as const;
export type DeviceTokenKind = typeof deviceTokenKinds[number];

/** An access or refresh token of a device grant, stored only as a keyed hash. */
export class DeviceToken extends Model<InferAttributes<DeviceToken>, InferCreationAttributes<DeviceToken>> {
    /** HMAC-SHA256 of the token, hex. */
    declare token_hash: string;
    declare grant_id: string;
    declare kind: DeviceTokenKind;
    /** An access token's lifetime; a refresh token's end of inactivity (never after its grant's maximum age). */
    declare expires_at: Date;
    /** A refresh token's use: it was exchanged for a successor pair, and is spent. */
    declare rotated_at: CreationOptional<Date | null>;
    /** The hash of the refresh token it was exchanged for. */
    declare successor_hash: CreationOptional<string | null>;
    declare created_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof DeviceToken {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends DeviceToken {}).init({
            token_hash: { type: DataTypes.STRING(64), primaryKey: true },
            grant_id: { type: DataTypes.STRING(32), allowNull: false },
            kind: { type: DataTypes.STRING(16), allowNull: false },
            expires_at: { type: DataTypes.DATE, allowNull: false },
            rotated_at: { type: DataTypes.DATE, allowNull: true },
            successor_hash: { type: DataTypes.STRING(64), allowNull: true },
            created_at: DataTypes.DATE
        }, { sequelize, modelName: 'DeviceToken', tableName: 'device_tokens', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: false });
    }
}
