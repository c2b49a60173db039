/*
 * What a key with `living_persons: redacted` sees of a record that concerns a living person: which
 * fields are hidden and what they read instead. The records, files and formats code apply it.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

import type { Principal } from '../../gateway/principal';
import type { ResourceRecord } from '../../models/resource-record';
import type { FieldType, ResourceDeclaration } from '../../models/resources';
import { livingCutoff, livingPersonSql, type LivingPersonsPolicy } from './living-persons';

/** What a redacted key's request carries down to the SQL. */
export interface Redaction {
    /** livingCutoff() of the request's day: bound as a parameter of livingPersonSql(). */
    cutoff: string;
    /** What a living person's first_name reads. */
    name: string;
}

/** The redaction a principal's answers get; undefined for `full` (every scheme but a redacted API key). */
export function redactionFor(principal: Principal, policy: LivingPersonsPolicy, now: Date = new Date()): Redaction | undefined {

    return principal.scopes.livingPersons === 'redacted' ? redactionUnder(policy, now) : undefined;
}

/** The redaction the policy asks for at `now`: who counts as living, and the name they are shown under. */
export function redactionUnder(policy: LivingPersonsPolicy, now: Date = new Date()): Redaction {

    return { cutoff: livingCutoff(policy, now), name: policy.redactedName };
}

/** The field of a person that shows the redacted name instead of being emptied. */
const nameField = 'first_name';

const hiddenTypes: ReadonlySet<FieldType> = new Set(['string', 'text', 'date', 'partial_date']);

/**
 * The column naming the person a record of `resource` concerns: `id` for persons, `person_id`
 * where the resource has that reference; undefined for a resource never redacted.
 */
export function personIdColumn(resource: ResourceDeclaration): 'id' | 'person_id' | undefined {

    if (resource.name === 'persons') {
        return 'id';
    }

    return resource.fields.person_id?.references === 'persons' ? 'person_id' : undefined;
}

/** The fields a redacted record shows as null (persons: every text and date but first_name); none for a resource never redacted. */
export function hiddenFields(resource: ResourceDeclaration): string[] {

    if (personIdColumn(resource) === undefined) {
        return [];
    }

    return Object.entries(resource.fields)
        .filter(([name, field]) => hiddenTypes.has(field.type) && !(resource.name === 'persons' && name === nameField))
        .map(([name]) => name);
}

/** Every field a redacted record shows differently: hiddenFields() and, for persons, first_name. Search, filters and sorts must not see them. */
export function redactedFields(resource: ResourceDeclaration): string[] {

    const hidden = hiddenFields(resource);
    return resource.name === 'persons' ? [nameField, ...hidden] : hidden;
}

/** What a redacted record shows for `field`: the redacted name for a person's first_name, else null. */
export function redactedValue(resource: ResourceDeclaration, field: string, redaction: Redaction): string | null {

    return resource.name === 'persons' && field === nameField ? redaction.name : null;
}

/**
 * Whether the stored record (of its family) concerns a person presumed living: a living person
 * themself, or a record whose person_id is one. Read from the database, so a record just updated
 * counts as it is now (inside `transaction`, a record it wrote). A resource never redacted, or a record with no person: false.
 */
export async function recordConcernsLivingPerson(sequelize: Sequelize, dialectName: string, resource: ResourceDeclaration,
    record: { id: string; family_long_id: string; person_id?: string | null }, redaction: Redaction, transaction?: Transaction): Promise<boolean> {

    const column = personIdColumn(resource);
    if (column === undefined || (column === 'person_id' && record.person_id === null)) {
        return false;
    }

    const dialect = dialectName === 'postgres' ? 'postgres' : 'sqlite';
    const living = livingPersonSql(dialect, `"record"."${column}"`, '"record"."family_long_id"', '$3');
    const rows = await sequelize.query(`SELECT 1 AS "living" FROM "${resource.table}" AS "record" WHERE "record"."id" = $1 AND "record"."family_long_id" = $2 AND ${living}`,
        { bind: [record.id, record.family_long_id, redaction.cutoff], type: QueryTypes.SELECT, transaction });
    return rows.length > 0;
}

/** recordConcernsLivingPerson() of a record of `resource` that was read: through its own connection (inside `transaction` when given). */
export function storedRecordConcernsLivingPerson(resource: ResourceDeclaration, record: ResourceRecord, redaction: Redaction, transaction?: Transaction): Promise<boolean> {

    const stored = record.get({ plain: true }) as { id: string; family_long_id: string; person_id?: string | null };
    return recordConcernsLivingPerson(record.sequelize, record.sequelize.getDialect(), resource, stored, redaction, transaction);
}
