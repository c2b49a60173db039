import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export const statusClasses = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = typeof statusClasses[number];

/**
 * API requests counted by the gateway, per hour, key, route group, route and status
 * class. Written only by the usage meter's flushes, which add to the count.
 */
export class UsageCounter extends Model<InferAttributes<UsageCounter>, InferCreationAttributes<UsageCounter>> {
    /** UTC hours since 1970-01-01: days and the last 24 hours are sums of hours. */
    declare hour: number;
    declare key_id: string;
    /** The gateway.yaml route group, e.g. `family-api`. */
    declare route_group: string;
    /** Method and path template, e.g. `GET /api/v1/persons/{id}`. */
    declare route: string;
    declare status_class: StatusClass;
    /** The key's family, so a family's usage is one indexed range. */
    declare family_long_id: string;
    declare requests: number;

    static define(sequelize: Sequelize): typeof UsageCounter {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends UsageCounter {}).init({
            hour: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
            key_id: { type: DataTypes.STRING(32), allowNull: false, primaryKey: true },
            route_group: { type: DataTypes.STRING(64), allowNull: false, primaryKey: true },
            route: { type: DataTypes.STRING(200), allowNull: false, primaryKey: true },
            status_class: { type: DataTypes.STRING(3), allowNull: false, primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false },
            requests: { type: DataTypes.INTEGER, allowNull: false }
        }, { sequelize, modelName: 'UsageCounter', tableName: 'usage_counters', timestamps: false });
    }
}
