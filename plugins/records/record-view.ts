import type { Request } from '@hapi/hapi';
import type { Transaction } from 'sequelize';

import type { PolicyStore } from '../../gateway/policies/policy-store';
import { principalOf } from '../../gateway/principal';
import { livingPersonsPolicyOf } from '../../lib/privacy/living-persons';
import { redactionFor, storedRecordConcernsLivingPerson, type Redaction } from '../../lib/privacy/redaction';
import type { ResourceRecord } from '../../models/resource-record';
import type { ResourceDeclaration } from '../../models/resources';
import type { RecordView } from './serialize';

/**
 * How a key sees one record (serialize.ts): undefined for a full key; for a redacted one, whether
 * the record as stored now (inside `transaction`, as it wrote it) concerns a living person.
 */
export async function recordView(resource: ResourceDeclaration, record: ResourceRecord, redaction: Redaction | undefined,
    transaction?: Transaction): Promise<RecordView | undefined> {

    if (!redaction) {
        return undefined;
    }

    return { redaction, living: await storedRecordConcernsLivingPerson(resource, record, redaction, transaction) };
}

/** The redaction of a request's answers: undefined unless its key sees living persons redacted (policies/privacy.yaml says who is living). */
export function redactionOf(policyStore: PolicyStore, request: Request): Redaction | undefined {

    return redactionFor(principalOf(request), livingPersonsPolicyOf(policyStore.current()));
}
