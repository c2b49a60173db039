import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/**
 * A form of the hosted site that was sent, remembered by its one-time token so that the same
 * form sent again (a reload, Back and resend) is answered, not done twice (plugins/site/form-tokens.ts).
 */
export class SiteFormToken extends Model<InferAttributes<SiteFormToken>, InferCreationAttributes<SiteFormToken>> {
    /** The token's random part; the rest binds it to the session it was issued in. */
    declare nonce: string;
    /** When the form was first sent. */
    declare sent_at: Date;
    /** What that first send made, as the page that answers a resend names it (a key's name, an endpoint's URL); null while it is being made. */
    declare outcome: string | null;
    /** The session's own end, after which the token is refused anyway: then the row is cleaned up. */
    declare expires_at: Date;

    static define(sequelize: Sequelize): typeof SiteFormToken {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends SiteFormToken {}).init({
            nonce: { type: DataTypes.STRING(32), primaryKey: true },
            sent_at: { type: DataTypes.DATE, allowNull: false },
            outcome: { type: DataTypes.TEXT, allowNull: true },
            expires_at: { type: DataTypes.DATE, allowNull: false }
        }, { sequelize, modelName: 'SiteFormToken', tableName: 'site_form_tokens', timestamps: false });
    }
}
