import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const conversationKinds = ['direct', 'group'] as const;
export type ConversationKind = typeof conversationKinds[number];

/** A conversation between users of one family: direct (two people) or a named group. */
export class Conversation extends Model<InferAttributes<Conversation>, InferCreationAttributes<Conversation>> {
    /** Opaque id (`cnv_…`). */
    declare id: string;
    declare family_long_id: string;
    declare kind: ConversationKind;
    /** A group's name; null for a direct conversation. */
    declare title: string | null;
    /** The user who started it: with the family's managers, who may change a group's members. */
    declare created_by: string;
    /** A direct conversation's two user ids in order, so a pair has one conversation; null for a group. */
    declare direct_key: string | null;
    /** Incremented on every change (title, members). */
    declare revision: number;
    declare created_at: Date;
    declare updated_at: Date;
    declare last_message_at: CreationOptional<Date | null>;

    static define(sequelize: Sequelize): typeof Conversation {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends Conversation {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            kind: { type: DataTypes.STRING(16), allowNull: false },
            title: { type: DataTypes.TEXT, allowNull: true },
            created_by: { type: DataTypes.STRING(32), allowNull: false },
            direct_key: { type: DataTypes.STRING(80), allowNull: true },
            revision: { type: DataTypes.INTEGER, allowNull: false },
            created_at: { type: DataTypes.DATE, allowNull: false },
            updated_at: { type: DataTypes.DATE, allowNull: false },
            last_message_at: { type: DataTypes.DATE, allowNull: true }
        }, { sequelize, modelName: 'Conversation', tableName: 'conversations', timestamps: false });
    }
}
