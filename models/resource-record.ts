import { DataTypes, Model, type ModelAttributeColumnOptions, type ModelOptions, type ModelStatic, type Sequelize, type Transaction } from 'sequelize';

import { fieldNamesWhere, maxCharactersOf, storedFileColumns, type FieldDeclaration, type ResourceDeclaration } from './resources';
import { searchText, searchTextColumn } from './search-text';

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
    string: (field: FieldDeclaration) => DataTypes.STRING(maxCharactersOf(field)),
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

/** What the write hooks read of a write's options. */
interface WriteOptions {
    /** The columns the write writes, when the caller names them. */
    fields?: PropertyKey[];
    transaction?: Transaction | null;
}

/**
 * Keeps `search_text` (search-text.ts) up to date from the model itself, so that no writer can forget
 * it: every create and save, bulkCreate, and the static update(), which loads the rows it changes
 * (individualHooks) when it sets a searchable field, as a new value must be folded with the others.
 * Upserts (upsert(), bulkCreate's updateOnDuplicate) are refused: their values may hold only some
 * searchable fields, and they do not read the row. Only a write that turns hooks off
 * (`hooks: false`) or raw SQL could bypass the column.
 */
function searchTextHooks(resource: ResourceDeclaration): ModelOptions<ResourceRecord>['hooks'] {

    const searchable = fieldNamesWhere(resource, (field) => field.searchable);

    // The searchable fields a changed record does not hold (read with some columns only, or created without them).
    const storedValuesOf = async (record: ResourceRecord, options: WriteOptions): Promise<Record<string, unknown>> => {

        const missing = record.isNewRecord ? [] : searchable.filter((name) => record.getDataValue(name) === undefined);
        if (missing.length === 0) {
            return {};
        }

        const model = record.constructor as ResourceModel;
        const stored = await model.findOne({ where: { id: record.id }, attributes: missing, transaction: options.transaction });
        return stored?.get({ plain: true }) ?? {};
    };

    const fold = async (record: ResourceRecord, options: WriteOptions) => {

        const changed = record.changed() || [];
        if (!record.isNewRecord && !searchable.some((name) => changed.includes(name))) {
            return;
        }

        const values = { ...await storedValuesOf(record, options), ...record.dataValues };
        record.setDataValue(searchTextColumn, searchText(values, searchable));
        if (options.fields && !options.fields.includes(searchTextColumn)) {
            options.fields = [...options.fields, searchTextColumn];
        }
    };

    const refuseUpsert = () => {

        throw new Error(`An upsert cannot keep a ${resource.singular}'s search text: create or update it instead`);
    };

    return {
        beforeSave: fold,
        beforeBulkCreate: async (records, options) => {

            if (options.updateOnDuplicate) {
                refuseUpsert();
            }

            for (const record of records) {
                await fold(record, options);
            }
        },
        beforeBulkUpdate: (options) => {

            const changes = (options as { attributes?: Record<string, unknown> }).attributes ?? {};
            if (searchable.some((name) => name in changes)) {
                options.individualHooks = true;
            }
        },
        beforeUpsert: refuseUpsert
    };
}

/** Defines the Sequelize model of one resource from its declaration. */
export function defineResourceModel(sequelize: Sequelize, resource: ResourceDeclaration): ResourceModel {

    const attributes: Record<string, ModelAttributeColumnOptions> = {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false },
        revision: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
        created_at: { type: DataTypes.DATE },
        updated_at: { type: DataTypes.DATE },
        [searchTextColumn]: { type: DataTypes.TEXT, allowNull: true }
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
        updatedAt: 'updated_at',
        hooks: searchTextHooks(resource)
    }) as ResourceModel;
}
