import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** Sizes are BIGINT, which PostgreSQL hands back as text. */
const bigInteger = (name: 'length_bytes' | 'offset_bytes') => ({
    type: DataTypes.BIGINT,
    allowNull: false,
    get(this: MessagingUpload): number {

        return Number(this.getDataValue(name));
    }
});

/**
 * A resumable upload (tus) of a message attachment, by one user of a family from one device. Its
 * bytes are in the upload files (lib/storage/upload-files.ts) under its id; its declared length counts
 * against the family's storage quota from its creation until the row is deleted.
 */
export class MessagingUpload extends Model<InferAttributes<MessagingUpload>, InferCreationAttributes<MessagingUpload>> {
    /** Opaque id (`upl_…`): the last segment of the upload's URL. */
    declare id: string;
    declare family_long_id: string;
    /** The uploader: nobody else sees the upload or attaches it. */
    declare user_id: string;
    /** The device that created it; null once that grant is gone. */
    declare grant_id: string | null;
    /** From Upload-Metadata `filename` (untrusted text), else `attachment`. */
    declare file_name: string;
    /** From Upload-Metadata `filetype`: what the client said, never trusted. */
    declare declared_type: string | null;
    /** Upload-Length, declared at creation: what the quota counts. */
    declare length_bytes: number;
    /** How many bytes have been received and kept (Upload-Offset). */
    declare offset_bytes: CreationOptional<number>;
    /** What the content is (policies/files.yaml signatures), once complete and allowed. */
    declare media_type: CreationOptional<string | null>;
    declare completed_at: CreationOptional<Date | null>;
    /** Removed after this unless a message holds it: Upload-Expires while unfinished. */
    declare expires_at: Date;
    /** The message that holds the file, once sent. */
    declare message_id: CreationOptional<string | null>;
    declare attached_at: CreationOptional<Date | null>;
    declare created_at: CreationOptional<Date>;
    declare updated_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof MessagingUpload {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends MessagingUpload {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            user_id: { type: DataTypes.STRING(32), allowNull: false },
            grant_id: { type: DataTypes.STRING(32), allowNull: true },
            file_name: { type: DataTypes.STRING(255), allowNull: false },
            declared_type: { type: DataTypes.STRING(255), allowNull: true },
            length_bytes: bigInteger('length_bytes'),
            offset_bytes: { ...bigInteger('offset_bytes'), defaultValue: 0 },
            media_type: { type: DataTypes.STRING(255), allowNull: true },
            completed_at: { type: DataTypes.DATE, allowNull: true },
            expires_at: { type: DataTypes.DATE, allowNull: false },
            message_id: { type: DataTypes.STRING(32), allowNull: true },
            attached_at: { type: DataTypes.DATE, allowNull: true },
            created_at: DataTypes.DATE,
            updated_at: DataTypes.DATE
        }, { sequelize, modelName: 'MessagingUpload', tableName: 'messaging_uploads', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    }
}
