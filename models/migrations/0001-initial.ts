import { DataTypes, type QueryInterface } from 'sequelize';

/*
 * The initial schema, frozen as it was at this migration. Later schema changes
 * get migrations of their own; never edit this one once released.
 */

const S = (length: number) => ({ type: DataTypes.STRING(length), allowNull: true });
const TEXT = { type: DataTypes.TEXT, allowNull: true };
const BIGINT = { type: DataTypes.BIGINT, allowNull: true };
const DATE = S(10);
const REF = S(32);

const resourceTables: Record<string, Record<string, object>> = {
    trees: { name: S(200), description: TEXT },
    persons: {
        tree_id: REF, first_name: S(100), last_name: S(100), birth_name: S(100), gender: S(32),
        birth_date: DATE, birth_place: S(200), death_date: DATE, death_place: S(200), notes: TEXT
    },
    gallery_items: {
        title: S(200), description: TEXT, taken_on: DATE, place: S(200), person_id: REF,
        original_name: S(255), media_type: S(100), size_bytes: BIGINT
    },
    events: { title: S(200), type: S(32), date: DATE, place: S(200), person_id: REF, description: TEXT },
    projects: { title: S(200), status: S(32), owner: S(200), due_on: DATE, description: TEXT },
    finances: {
        description: S(200), kind: S(32), amount_minor: BIGINT, currency: S(3), category: S(100),
        occurred_on: DATE, notes: TEXT
    },
    documents: {
        title: S(200), category: S(100), document_date: DATE, person_id: REF, description: TEXT,
        original_name: S(255), media_type: S(100), size_bytes: BIGINT
    },
    history_entries: { title: S(200), period: S(100), occurred_on: DATE, place: S(200), person_id: REF, body: TEXT }
};

const timestamps = {
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false }
};

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    const isPostgres = queryInterface.sequelize.getDialect() === 'postgres';

    await queryInterface.createTable('service_settings', {
        name: { type: DataTypes.STRING(64), primaryKey: true },
        value: { type: DataTypes.TEXT, allowNull: false }
    });

    await queryInterface.createTable('families', {
        family_long_id: { type: DataTypes.STRING(64), primaryKey: true },
        name: { type: DataTypes.STRING(200), allowNull: false },
        plan: { type: DataTypes.STRING(20), allowNull: false },
        api_enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        api_resources: { type: DataTypes.JSON, allowNull: false },
        api_suspended_at: { type: DataTypes.DATE, allowNull: true },
        api_suspension_reason: TEXT,
        api_suspended_by: S(64),
        ...timestamps
    });

    await queryInterface.createTable('users', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        email: { type: DataTypes.STRING(320), allowNull: false, unique: true },
        password_hash: { type: DataTypes.STRING(100), allowNull: false },
        family_long_id: { type: DataTypes.STRING(64), allowNull: true, references: { model: 'families', key: 'family_long_id' }, onDelete: 'CASCADE' },
        role: S(20),
        is_super_admin: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        ...timestamps
    });
    await queryInterface.addIndex('users', ['family_long_id']);

    await queryInterface.createTable('api_keys', {
        id: { type: DataTypes.STRING(32), primaryKey: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false, references: { model: 'families', key: 'family_long_id' }, onDelete: 'CASCADE' },
        name: { type: DataTypes.STRING(100), allowNull: false },
        display_prefix: { type: DataTypes.STRING(20), allowNull: false },
        last_four: { type: DataTypes.STRING(4), allowNull: false },
        secret_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
        resource_scopes: { type: DataTypes.JSON, allowNull: false },
        operation_scopes: { type: DataTypes.JSON, allowNull: false },
        predates_write_scopes: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        created_by: { type: DataTypes.STRING(64), allowNull: false },
        last_used_at: { type: DataTypes.DATE, allowNull: true },
        revoked_at: { type: DataTypes.DATE, allowNull: true },
        revoked_by: S(64),
        ...timestamps
    });
    await queryInterface.addIndex('api_keys', ['family_long_id']);

    await queryInterface.createTable('change_events', {
        // SQLite only auto-increments an INTEGER PRIMARY KEY.
        id: { type: isPostgres ? DataTypes.BIGINT : DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        family_long_id: { type: DataTypes.STRING(64), allowNull: false },
        resource: { type: DataTypes.STRING(32), allowNull: false },
        action: { type: DataTypes.STRING(16), allowNull: false },
        record_id: { type: DataTypes.STRING(32), allowNull: false },
        revision: { type: DataTypes.INTEGER, allowNull: false },
        occurred_at: { type: DataTypes.DATE, allowNull: false }
    });
    await queryInterface.addIndex('change_events', ['family_long_id', 'id']);

    for (const [table, columns] of Object.entries(resourceTables)) {
        await queryInterface.createTable(table, {
            id: { type: DataTypes.STRING(32), primaryKey: true },
            family_long_id: { type: DataTypes.STRING(64), allowNull: false, references: { model: 'families', key: 'family_long_id' }, onDelete: 'CASCADE' },
            ...columns,
            revision: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
            ...timestamps
        });
        // Every query is scoped by family; the default order is creation time, id.
        await queryInterface.addIndex(table, ['family_long_id', 'created_at', 'id']);
    }
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    for (const table of [...Object.keys(resourceTables), 'change_events', 'api_keys', 'users', 'families', 'service_settings']) {
        await queryInterface.dropTable(table);
    }
}
