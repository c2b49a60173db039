import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** A social block: `blocker_id` no longer hears from `blocked_id` (docs/architecture/messaging.md says how). */
export class UserBlock extends Model<InferAttributes<UserBlock>, InferCreationAttributes<UserBlock>> {
    declare blocker_id: string;
    declare blocked_id: string;
    declare family_long_id: string;
    declare created_at: Date;

    static define(sequelize: Sequelize): typeof UserBlock {

        return (class extends UserBlock {}).init({
            blocker_id: { type: DataTypes.STRING(32), primaryKey: true },
            blocked_id: { type: DataTypes.STRING(32), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            created_at: { type: DataTypes.DATE, allowNull: false }
        }, { sequelize, modelName: 'UserBlock', tableName: 'user_blocks', timestamps: false });
    }
}
