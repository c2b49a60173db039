import type { QueryInterface } from 'sequelize';

/*
 * A person's events by family, person and type (then date): whether a person is presumed living
 * (lib/privacy/living-persons.ts) looks for their death or burial event and their earliest dated
 * event for every record a redacted key reads. Without it each look is a scan of the family's
 * events. Frozen as it was at this migration, like every migration.
 */

const indexName = 'events_family_long_id_person_id_type_date';

export async function up({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.addIndex('events', ['family_long_id', 'person_id', 'type', 'date'], { name: indexName });
}

export async function down({ context: queryInterface }: { context: QueryInterface }): Promise<void> {

    await queryInterface.removeIndex('events', indexName);
}
