import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const conflictReasons = ['account_disabled', 'storage_quota', 'conversation_access', 'blocked', 'attachment_policy'] as const;
export type ConflictReason = typeof conflictReasons[number];

export const conflictResolutions = ['retried', 'edited', 'discarded'] as const;
export type ConflictResolution = typeof conflictResolutions[number];

/** An offline outbox item the service refused when the client reconnected: kept, never dropped, until the user resolves it. */
export class MessagingConflict extends Model<InferAttributes<MessagingConflict>, InferCreationAttributes<MessagingConflict>> {
    /** Opaque id (`cfl_…`). */
    declare id: string;
    declare family_long_id: string;
    declare user_id: string;
    /** The device that sent the item. */
    declare grant_id: string | null;
    declare conversation_id: string | null;
    declare reason: ConflictReason;
    /** Why, for people. */
    declare message: string;
    /** The client's item as it sent it. */
    declare item: Record<string, unknown>;
    /** Its place: the last message of the conversation before it when it was refused (null: at the start). */
    declare after_message_id: string | null;
    declare status: 'open' | 'resolved';
    declare resolution: CreationOptional<ConflictResolution | null>;
    declare revision: number;
    declare created_at: Date;
    declare resolved_at: CreationOptional<Date | null>;

    static define(sequelize: Sequelize): typeof MessagingConflict {

        return (class extends MessagingConflict {}).init({
            id: { type: DataTypes.STRING(32), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            user_id: { type: DataTypes.STRING(32), allowNull: false },
            grant_id: { type: DataTypes.STRING(32), allowNull: true },
            conversation_id: { type: DataTypes.STRING(32), allowNull: true },
            reason: { type: DataTypes.STRING(32), allowNull: false },
            message: { type: DataTypes.TEXT, allowNull: false },
            item: { type: DataTypes.JSON, allowNull: false },
            after_message_id: { type: DataTypes.STRING(32), allowNull: true },
            status: { type: DataTypes.STRING(16), allowNull: false },
            resolution: { type: DataTypes.STRING(16), allowNull: true },
            revision: { type: DataTypes.INTEGER, allowNull: false },
            created_at: { type: DataTypes.DATE, allowNull: false },
            resolved_at: { type: DataTypes.DATE, allowNull: true }
        }, { sequelize, modelName: 'MessagingConflict', tableName: 'messaging_conflicts', timestamps: false });
    }
}
