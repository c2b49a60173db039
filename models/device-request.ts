import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { textLimits } from '../lib/text-limits';

export const deviceRequestStatuses = ['pending', 'approved', 'denied'] as const;
export type DeviceRequestStatus = typeof deviceRequestStatuses[number];

/**
 * A device authorization request (RFC 8628): a client asked to be connected, and waits while a user
 * approves or denies it in the browser with the user code. Only a keyed hash of the device code is stored.
 */
export class DeviceRequest extends Model<InferAttributes<DeviceRequest>, InferCreationAttributes<DeviceRequest>> {
    /** Opaque id (`dar_…`). */
    declare id: string;
    /** HMAC-SHA256 of the device code the client polls with, hex. */
    declare device_code_hash: string;
    /** The user code, its 8 letters without the dash. */
    declare user_code: string;
    /** The client (policies/messaging.yaml) that asked. */
    declare client_id: string;
    /** The device's name as the client sent it: untrusted text. */
    declare device_name: string;
    /** The scopes asked for, all allowed to the client. */
    declare scopes: string[];
    /** The client's address when it asked. */
    declare requested_from: string;
    /** After it, the request can be neither approved nor polled. */
    declare expires_at: Date;
    /** Seconds the client must wait between polls; grows by every `slow_down`. */
    declare interval_seconds: number;
    /** The last poll, early ones included. */
    declare last_polled_at: CreationOptional<Date | null>;
    declare status: CreationOptional<DeviceRequestStatus>;
    /** Who approved or denied it. */
    declare user_id: CreationOptional<string | null>;
    declare decided_at: CreationOptional<Date | null>;
    /** The grant approval made; its first tokens are handed out once, to the first poll after approval. */
    declare grant_id: CreationOptional<string | null>;
    /** When the poll took the tokens: the device code is spent. */
    declare tokens_issued_at: CreationOptional<Date | null>;
    declare created_at: CreationOptional<Date>;
    declare updated_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof DeviceRequest {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends DeviceRequest {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            device_code_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
            user_code: { type: DataTypes.STRING(8), allowNull: false, unique: true },
            client_id: { type: DataTypes.STRING(100), allowNull: false },
            device_name: { type: DataTypes.STRING(textLimits.deviceName), allowNull: false },
            scopes: { type: DataTypes.JSON, allowNull: false },
            requested_from: { type: DataTypes.STRING(64), allowNull: false },
            expires_at: { type: DataTypes.DATE, allowNull: false },
            interval_seconds: { type: DataTypes.INTEGER, allowNull: false },
            last_polled_at: { type: DataTypes.DATE, allowNull: true },
            status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
            user_id: { type: DataTypes.STRING(32), allowNull: true },
            decided_at: { type: DataTypes.DATE, allowNull: true },
            grant_id: { type: DataTypes.STRING(32), allowNull: true },
            tokens_issued_at: { type: DataTypes.DATE, allowNull: true },
            created_at: DataTypes.DATE,
            updated_at: DataTypes.DATE
        }, { sequelize, modelName: 'DeviceRequest', tableName: 'device_requests', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    }
}
