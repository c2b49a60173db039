import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { textLimits } from '../lib/text-limits';

/** A connected device: what a user approved for one client, reached through its tokens until revoked. */
export class DeviceGrant extends Model<InferAttributes<DeviceGrant>, InferCreationAttributes<DeviceGrant>> {
    /** Opaque id (`dev_…`), used to revoke and in listings. */
    declare id: string;
    /** The user who approved it: the device acts as them. */
    declare user_id: string;
    /** The user's family when approved; never changes. */
    declare family_long_id: string;
    declare client_id: string;
    /** As the client sent it: untrusted text. */
    declare device_name: string;
    declare scopes: string[];
    declare approved_at: Date;
    /** No refresh token of the grant is good after it, however recently used (the maximum age). */
    declare expires_at: Date;
    /** When its current refresh token expires unused (the inactivity limit): moved by every refresh. */
    declare idle_expires_at: Date;
    /** Last authenticated use, flushed in batches (not one write per request). */
    declare last_used_at: CreationOptional<Date | null>;
    /** The client's address at the last refresh. */
    declare last_used_from: CreationOptional<string | null>;
    /** Set once revoked: none of its tokens authenticates again. */
    declare revoked_at: CreationOptional<Date | null>;
    /** Who revoked it (user id, `cli`, `client` for /oauth/revoke, `reuse` for a rotated refresh token presented again). */
    declare revoked_by: CreationOptional<string | null>;
    declare created_at: CreationOptional<Date>;
    declare updated_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof DeviceGrant {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends DeviceGrant {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            user_id: { type: DataTypes.STRING(32), allowNull: false },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            client_id: { type: DataTypes.STRING(100), allowNull: false },
            device_name: { type: DataTypes.STRING(textLimits.deviceName), allowNull: false },
            scopes: { type: DataTypes.JSON, allowNull: false },
            approved_at: { type: DataTypes.DATE, allowNull: false },
            expires_at: { type: DataTypes.DATE, allowNull: false },
            idle_expires_at: { type: DataTypes.DATE, allowNull: false },
            last_used_at: { type: DataTypes.DATE, allowNull: true },
            last_used_from: { type: DataTypes.STRING(64), allowNull: true },
            revoked_at: { type: DataTypes.DATE, allowNull: true },
            revoked_by: { type: DataTypes.STRING(64), allowNull: true },
            created_at: DataTypes.DATE,
            updated_at: DataTypes.DATE
        }, { sequelize, modelName: 'DeviceGrant', tableName: 'device_grants', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    }
}
