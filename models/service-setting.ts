import { DataTypes, Model, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/** Service-wide values generated once, such as the master secret of the embedded default. */
export class ServiceSetting extends Model<InferAttributes<ServiceSetting>, InferCreationAttributes<ServiceSetting>> {
    declare name: string;
    declare value: string;

    static define(sequelize: Sequelize): typeof ServiceSetting {

        // A subclass per Sequelize instance, so several deployments (tests, instances) can live in one process.
        return (class extends ServiceSetting {}).init({
            name: { type: DataTypes.STRING(64), primaryKey: true },
            value: { type: DataTypes.TEXT, allowNull: false }
        }, { sequelize, modelName: 'ServiceSetting', tableName: 'service_settings', timestamps: false });
    }
}
