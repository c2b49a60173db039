import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A sign-in to the hosted site. The cookie carries the session id; only its hash is stored. */
export class SiteSession extends Model<InferAttributes<SiteSession>, InferCreationAttributes<SiteSession>> {
    /** SHA-256 of the session id, hex: a copy of the table signs nobody in. */
    declare id_hash: string;
    declare user_id: string;
    /** The password was right but the TOTP code is still to come: not signed in yet. */
    declare two_factor_pending: CreationOptional<boolean>;
    /** Where the sign-in came from, shown in the audit log. */
    declare ip: string | null;
    declare user_agent: string | null;
    declare created_at: Date;
    /** After this the session is refused and cleaned up. */
    declare expires_at: Date;

    static define(sequelize: Sequelize): typeof SiteSession {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends SiteSession {}).init({
            id_hash: { type: DataTypes.STRING(64), primaryKey: true },
            user_id: { type: DataTypes.STRING(32), allowNull: false },
            two_factor_pending: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
            ip: { type: DataTypes.STRING(64), allowNull: true },
            user_agent: { type: DataTypes.STRING(300), allowNull: true },
            created_at: { type: DataTypes.DATE, allowNull: false },
            expires_at: { type: DataTypes.DATE, allowNull: false }
        }, { sequelize, modelName: 'SiteSession', tableName: 'site_sessions', timestamps: false });
    }
}
