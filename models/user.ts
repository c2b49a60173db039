import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { textLimits } from '../lib/text-limits';

export const familyRoles = ['manager', 'member'] as const;
export type FamilyRole = typeof familyRoles[number];

/** A person who signs in to the hosted site. */
export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
    /** Opaque id (`usr_…`). */
    declare id: string;
    /** Sign-in email, stored lower-case. */
    declare email: string;
    /** bcrypt hash of the password; the password itself is never stored. */
    declare password_hash: string;
    /** The family the user belongs to, if any (super-admins may have none). */
    declare family_long_id: CreationOptional<string | null>;
    /** Role within that family. */
    declare role: CreationOptional<FamilyRole | null>;
    /** Operators of the hosted service. */
    declare is_super_admin: CreationOptional<boolean>;
    /** TOTP secret, encrypted under a key derived from the master secret; set at enrolment, before confirmation. */
    declare totp_secret: CreationOptional<string | null>;
    /** When two-factor sign-in was confirmed; null: sign-in needs the password only. */
    declare totp_enabled_at: CreationOptional<Date | null>;
    /** The TOTP time step (30 s since the epoch) of the last code accepted: a code is taken once, none of an earlier step after it. */
    declare totp_last_step: CreationOptional<number | null>;
    /** Keyed hashes of the unused recovery codes; each works once instead of a TOTP code. */
    declare recovery_code_hashes: CreationOptional<string[] | null>;
    /** Set while the user is disabled: no sign-in, and none of their devices' tokens authenticates. */
    declare disabled_at: CreationOptional<Date | null>;
    declare created_at: CreationOptional<Date>;
    declare updated_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof User {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends User {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            email: { type: DataTypes.STRING(textLimits.email), allowNull: false, unique: true },
            password_hash: { type: DataTypes.STRING(100), allowNull: false },
            family_long_id: { type: DataTypes.STRING(64), allowNull: true },
            role: { type: DataTypes.STRING(20), allowNull: true },
            is_super_admin: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
            totp_secret: { type: DataTypes.TEXT, allowNull: true },
            totp_enabled_at: { type: DataTypes.DATE, allowNull: true },
            totp_last_step: { type: DataTypes.INTEGER, allowNull: true },
            recovery_code_hashes: { type: DataTypes.JSON, allowNull: true },
            disabled_at: { type: DataTypes.DATE, allowNull: true },
            created_at: DataTypes.DATE,
            updated_at: DataTypes.DATE
        }, { sequelize, modelName: 'User', tableName: 'users', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    }
}
