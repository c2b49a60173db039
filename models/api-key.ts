import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { textLimits } from '../lib/text-limits';

/** What a key sees of living persons (a key option, changeable like its scopes). */
export const livingPersonsAccesses = ['full', 'redacted'] as const;
export type LivingPersonsAccess = typeof livingPersonsAccesses[number];

/** An API key. Only a keyed hash of the secret is stored; the key is shown once at creation. */
export class ApiKey extends Model<InferAttributes<ApiKey>, InferCreationAttributes<ApiKey>> {
    /** Opaque id (`key_…`), used to revoke and in usage reports. */
    declare id: string;
    /** The family whose records the key reaches; never changes. */
    declare family_long_id: string;
    /** Human label given at creation. */
    declare name: string;
    /** The start of the key (`frk_AbCd`), safe to show so people recognise it. */
    declare display_prefix: string;
    /** The last four characters, safe to show. */
    declare last_four: string;
    /** HMAC-SHA256 of the full key under the service pepper, hex. */
    declare secret_hash: string;
    /** Resources the key may reach (within the family's allowed resources). */
    declare resource_scopes: string[];
    /** Operations the key may perform. */
    declare operation_scopes: string[];
    /** Created before write scopes existed: read/search/sort/filter only, forever. */
    declare predates_write_scopes: CreationOptional<boolean>;
    /** What it sees of living persons: `full`, or `redacted` (named "Living", their details removed). */
    declare living_persons: CreationOptional<LivingPersonsAccess>;
    /** Who created it (user id, or `cli`). */
    declare created_by: string;
    /** Last authenticated use, flushed in batches (not one write per request). */
    declare last_used_at: CreationOptional<Date | null>;
    /** Set once revoked; a revoked key never authenticates again. */
    declare revoked_at: CreationOptional<Date | null>;
    /** Who revoked it. */
    declare revoked_by: CreationOptional<string | null>;
    declare created_at: CreationOptional<Date>;
    declare updated_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof ApiKey {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends ApiKey {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            name: { type: DataTypes.STRING(textLimits.apiKeyName), allowNull: false },
            display_prefix: { type: DataTypes.STRING(20), allowNull: false },
            last_four: { type: DataTypes.STRING(4), allowNull: false },
            secret_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
            resource_scopes: { type: DataTypes.JSON, allowNull: false },
            operation_scopes: { type: DataTypes.JSON, allowNull: false },
            predates_write_scopes: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
            living_persons: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'full' },
            created_by: { type: DataTypes.STRING(64), allowNull: false },
            last_used_at: { type: DataTypes.DATE, allowNull: true },
            revoked_at: { type: DataTypes.DATE, allowNull: true },
            revoked_by: { type: DataTypes.STRING(64), allowNull: true },
            created_at: DataTypes.DATE,
            updated_at: DataTypes.DATE
        }, { sequelize, modelName: 'ApiKey', tableName: 'api_keys', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    }
}
