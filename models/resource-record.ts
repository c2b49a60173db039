import { DataTypes, Model, type ModelAttributeColumnOptions, type ModelStatic, type Sequelize } from 'sequelize';

import { storedFileColumns, type FieldDeclaration, type ResourceDeclaration } from './resources';

/** A row of one of the eight resource tables; its fields come from the resource declaration. */
export class ResourceRecord extends Model {
    declare id: string;
    declare family_long_id: string;
    declare revision: number;
    declare created_at: Date;
    declare updated_at: Date;
}

export type ResourceModel = ModelStatic<ResourceRecord>;

const columnTypes = {
    string: (field: FieldDeclaration) => DataTypes.STRING(field.max ?? 255),
    text: () => DataTypes.TEXT,
    enum: () => DataTypes.STRING(32),
    date: () => DataTypes.STRING(10),
    partial_date: () => DataTypes.STRING(10),
    integer: () => DataTypes.BIGINT,
    currency: () => DataTypes.STRING(3),
    reference: () => DataTypes.STRING(32)
} as const;

function column(name: string, field: FieldDeclaration): ModelAttributeColumnOptions {

    const options: ModelAttributeColumnOptions = { type: columnTypes[field.type](field), allowNull: true };
    if (field.type === 'integer') {
        options.get = function (this: ResourceRecord) {

            const value = this.getDataValue(name);
            return value === null || value === undefined ? value : Number(value);     // PostgreSQL returns BIGINT as text
        };
    }

    return options;
}

/** Defines the Sequelize model of one resource from its declaration. */
export function defineResourceModel(sequelize: Sequelize, resource: ResourceDeclaration): ResourceModel {

    const attributes: Record<string, ModelAttributeColumnOptions> = {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false },
        revision: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
        created_at: { type: DataTypes.DATE },
        updated_at: { type: DataTypes.DATE }
    };

    for (const [name, field] of Object.entries({ ...resource.fields, ...(resource.storesFile ? storedFileColumns : {}) })) {
        attributes[name] = column(name, field);
    }

    const model = class extends ResourceRecord {};
    Object.defineProperty(model, 'name', { value: resource.name });
    return model.init(attributes, {
        sequelize,
        modelName: resource.name,
        tableName: resource.table,
        timestamps: true,
        createdAt: 'created_at',
        updatedAt: 'updated_at'
    }) as ResourceModel;
}
