/*
 * What a key that reads living persons redacted may write: nothing that concerns a person presumed
 * living, and no record naming one. Otherwise its writes would uncover them: a death date or a death
 * event makes a person read as dead, so in full, and a write's validation errors quote stored values.
 * Checked inside the write's transaction, which holds the family's write turn: nobody changes who is
 * living between the check and the write.
 */
import type { Sequelize, Transaction } from 'sequelize';

import { apiError, type ErrorCode } from '../../lib/errors';
import { personIdColumn, recordConcernsLivingPerson, storedRecordConcernsLivingPerson, type Redaction } from '../../lib/privacy/redaction';
import type { ResourceRecord } from '../../models/resource-record';
import { resources, type ResourceDeclaration } from '../../models/resources';

/** What the API reference says the write routes of the resources whose records concern persons may answer besides. */
export const livingWriteErrors: readonly ErrorCode[] = ['living_person_protected'];

const protectedLiving = (what: string) => apiError(403, 'living_person_protected', `This API key hides living persons' details, so it cannot ${what}.`);

/** The fields by which a record of `resource` names a person (person_id; a person's parents and spouse). */
const personReferences = (resource: ResourceDeclaration): string[] => Object.entries(resource.fields)
    .filter(([, field]) => field.type === 'reference' && field.references === 'persons')
    .map(([name]) => name);

/** Refuses values (of a create or an update) that name a person presumed living. */
export async function assertNamesNoLivingPerson(sequelize: Sequelize, resource: ResourceDeclaration, familyLongId: string,
    values: Record<string, unknown>, redaction: Redaction, transaction: Transaction): Promise<void> {

    for (const field of personReferences(resource)) {
        const personId = values[field];
        if (typeof personId === 'string' &&
            await recordConcernsLivingPerson(sequelize, sequelize.getDialect(), resources.persons, { id: personId, family_long_id: familyLongId }, redaction, transaction)) {
            throw protectedLiving(`name a living person (${personId}) in ${field}`);
        }
    }
}

/** Refuses a change or deletion of a stored record that concerns a person presumed living: the person themself, or a record whose person_id is one. */
export async function assertConcernsNoLivingPerson(resource: ResourceDeclaration, record: ResourceRecord, redaction: Redaction, transaction: Transaction): Promise<void> {

    if (await storedRecordConcernsLivingPerson(resource, record, redaction, transaction)) {
        const personId = personIdColumn(resource) === 'id' ? record.id : record.get('person_id') as string;
        throw protectedLiving(`change records that concern a living person (${personId})`);
    }
}
