import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import type { ChangeAction } from './change-event';

export const messagingChangeKinds = ['conversation', 'member', 'message', 'block', 'conflict'] as const;
export type MessagingChangeKind = typeof messagingChangeKinds[number];

/**
 * The messaging change log (transactional outbox), as change_events is the family API's: one row per
 * change, written in the change's transaction. The recovery stream and sync read it.
 */
export class MessagingChange extends Model<InferAttributes<MessagingChange>, InferCreationAttributes<MessagingChange>> {
    /** Monotonic: commit order within a family. */
    declare id: CreationOptional<number>;
    declare family_long_id: string;
    /** The conversation whose members see it; null for a change only `user_id` sees. */
    declare conversation_id: string | null;
    /** The one user who sees it (a block, a conflict); null for a conversation's change. */
    declare user_id: string | null;
    declare kind: MessagingChangeKind;
    declare action: ChangeAction;
    /** The changed record: a conversation, message, conflict, or for `member` and `block` the other user. */
    declare record_id: string;
    declare revision: number;
    declare occurred_at: Date;

    static define(sequelize: Sequelize): typeof MessagingChange {

        return (class extends MessagingChange {}).init({
            id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true, get() {

                return Number(this.getDataValue('id'));     // PostgreSQL returns BIGINT as text
            } },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            conversation_id: { type: DataTypes.STRING(32), allowNull: true },
            user_id: { type: DataTypes.STRING(32), allowNull: true },
            kind: { type: DataTypes.STRING(16), allowNull: false },
            action: { type: DataTypes.STRING(16), allowNull: false },
            record_id: { type: DataTypes.STRING(32), allowNull: false },
            revision: { type: DataTypes.INTEGER, allowNull: false },
            occurred_at: { type: DataTypes.DATE, allowNull: false }
        }, { sequelize, modelName: 'MessagingChange', tableName: 'messaging_changes', timestamps: false });
    }
}
