import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A user in a conversation: who sees it and may send into it. Removing a member deletes the row. */
export class ConversationMember extends Model<InferAttributes<ConversationMember>, InferCreationAttributes<ConversationMember>> {
    declare conversation_id: string;
    declare user_id: string;
    declare family_long_id: string;
    declare added_by: string;
    declare joined_at: Date;
    /** The creation time of the last message the member has read: what is newer counts as unread. */
    declare last_read_at: CreationOptional<Date | null>;

    static define(sequelize: Sequelize): typeof ConversationMember {

        return (class extends ConversationMember {}).init({
            conversation_id: { type: DataTypes.STRING(32), primaryKey: true },
            user_id: { type: DataTypes.STRING(32), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            added_by: { type: DataTypes.STRING(32), allowNull: false },
            joined_at: { type: DataTypes.DATE, allowNull: false },
            last_read_at: { type: DataTypes.DATE, allowNull: true }
        }, { sequelize, modelName: 'ConversationMember', tableName: 'conversation_members', timestamps: false });
    }
}
