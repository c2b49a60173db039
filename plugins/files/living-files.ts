/*
 * The files of records that concern a living person are not served to a key that sees living
 * persons redacted: neither through a document's download route nor through a signed URL issued to it.
 */
import type { Request } from '@hapi/hapi';

import { principalOf } from '../../gateway/principal';
import { livingCutoff, livingPersonsPolicyOf } from '../../lib/privacy/living-persons';
import { recordConcernsLivingPerson, redactionFor, type Redaction } from '../../lib/privacy/redaction';
import type { ResourceRecord } from '../../models/resource-record';
import type { ResourceDeclaration } from '../../models/resources';
import type { FilesContext } from './context';

/** The redaction of the request's key; undefined for a key that sees everything. */
export const redactionOf = (context: FilesContext, request: Request): Redaction | undefined => redactionFor(principalOf(request), livingPersonsPolicyOf(context.policies()));

/** The redaction a signed URL issued to a redacted key is served under: today's, as its key's requests would be. */
export function signedUrlRedaction(context: FilesContext): Redaction {

    const policy = livingPersonsPolicyOf(context.policies());
    return { cutoff: livingCutoff(policy), name: policy.redactedName };
}

/** Whether the record's file is withheld under `redaction`: it concerns a person presumed living now. */
export function fileWithheld(context: FilesContext, resource: ResourceDeclaration, record: ResourceRecord, redaction: Redaction | undefined): Promise<boolean> | false {

    if (!redaction) {
        return false;
    }

    const sequelize = context.models.Family.sequelize!;
    const { id, family_long_id: familyLongId, person_id: personId } = record.get({ plain: true }) as { id: string; family_long_id: string; person_id?: string | null };
    return recordConcernsLivingPerson(sequelize, sequelize.getDialect(), resource, { id, family_long_id: familyLongId, person_id: personId ?? null }, redaction);
}
