import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { textLimits } from '../lib/text-limits';

export const planNames = ['lite', 'family', 'max', 'lifetime'] as const;
export type PlanName = typeof planNames[number];

/** A family: the tenant. Every record, key and event belongs to exactly one. */
export class Family extends Model<InferAttributes<Family>, InferCreationAttributes<Family>> {
    /** Opaque, long and unguessable public id; the tenant key of every query. */
    declare family_long_id: string;
    /** Display name. */
    declare name: string;
    /** Subscription plan; what it allows lives in policies/plans.yaml. */
    declare plan: PlanName;
    /** Whether a manager turned API access on. */
    declare api_enabled: CreationOptional<boolean>;
    /** The resources the family exposes to API keys (a key can only narrow this). */
    declare api_resources: CreationOptional<string[]>;
    /** Set while a super-admin has suspended the family's API. */
    declare api_suspended_at: CreationOptional<Date | null>;
    /** Why it was suspended, shown to the family's managers. */
    declare api_suspension_reason: CreationOptional<string | null>;
    /** Who suspended it (user id, or `cli`). */
    declare api_suspended_by: CreationOptional<string | null>;
    /** Set while a super-admin has suspended the family's messaging (site and messaging API), apart from its API. */
    declare messaging_suspended_at: CreationOptional<Date | null>;
    /** Why its messaging was suspended, shown to the family. */
    declare messaging_suspension_reason: CreationOptional<string | null>;
    /** Who suspended its messaging (user id, or `cli`). */
    declare messaging_suspended_by: CreationOptional<string | null>;
    declare created_at: CreationOptional<Date>;
    declare updated_at: CreationOptional<Date>;

    static define(sequelize: Sequelize): typeof Family {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends Family {}).init({
            family_long_id: { type: DataTypes.STRING(64), primaryKey: true },
            name: { type: DataTypes.STRING(textLimits.familyName), allowNull: false },
            plan: { type: DataTypes.STRING(20), allowNull: false },
            api_enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
            api_resources: { type: DataTypes.JSON, allowNull: false, defaultValue: [] },
            api_suspended_at: { type: DataTypes.DATE, allowNull: true },
            api_suspension_reason: { type: DataTypes.TEXT, allowNull: true },
            api_suspended_by: { type: DataTypes.STRING(64), allowNull: true },
            messaging_suspended_at: { type: DataTypes.DATE, allowNull: true },
            messaging_suspension_reason: { type: DataTypes.TEXT, allowNull: true },
            messaging_suspended_by: { type: DataTypes.STRING(64), allowNull: true },
            created_at: DataTypes.DATE,
            updated_at: DataTypes.DATE
        }, { sequelize, modelName: 'Family', tableName: 'families', underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    }
}
