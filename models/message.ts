import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A file a message carries: an upload of the messaging API, attached when the message was sent. */
export interface MessageAttachment {
    upload_id: string;
    file_name: string;
    media_type: string;
    size_bytes: number;
}

/** A message in a conversation. Deleting one keeps it as a tombstone: its place stays, its text and files go. */
export class Message extends Model<InferAttributes<Message>, InferCreationAttributes<Message>> {
    /** Opaque id (`msg_…`). */
    declare id: string;
    declare conversation_id: string;
    declare family_long_id: string;
    declare sender_id: string;
    /** Null once deleted. */
    declare body: string | null;
    declare attachments: MessageAttachment[];
    declare revision: number;
    /** Its place in the history (with the id as tiebreak). */
    declare created_at: Date;
    declare edited_at: CreationOptional<Date | null>;
    declare deleted_at: CreationOptional<Date | null>;
    /** When the client wrote it, for an item of an offline outbox; null otherwise. */
    declare client_time: CreationOptional<Date | null>;

    static define(sequelize: Sequelize): typeof Message {

        return (class extends Message {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            conversation_id: { type: DataTypes.STRING(32), allowNull: false },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            sender_id: { type: DataTypes.STRING(32), allowNull: false },
            body: { type: DataTypes.TEXT, allowNull: true },
            attachments: { type: DataTypes.JSON, allowNull: false },
            revision: { type: DataTypes.INTEGER, allowNull: false },
            created_at: { type: DataTypes.DATE, allowNull: false },
            edited_at: { type: DataTypes.DATE, allowNull: true },
            deleted_at: { type: DataTypes.DATE, allowNull: true },
            client_time: { type: DataTypes.DATE, allowNull: true }
        }, { sequelize, modelName: 'Message', tableName: 'messages', timestamps: false });
    }
}
