/*
 * The files of records that concern a living person are not served to a key that sees living
 * persons redacted: neither through a document's download route nor through a signed URL issued to it.
 */
import { livingPersonsPolicyOf } from '../../lib/privacy/living-persons';
import { redactionUnder, storedRecordConcernsLivingPerson, type Redaction } from '../../lib/privacy/redaction';
import type { ResourceRecord } from '../../models/resource-record';
import type { ResourceDeclaration } from '../../models/resources';
import type { FilesContext } from './context';

/** The redaction a signed URL issued to a redacted key is served under: today's, as its key's requests would be. */
export function signedUrlRedaction(context: FilesContext): Redaction {

    return redactionUnder(livingPersonsPolicyOf(context.policies()));
}

/** Whether the record's file is withheld under `redaction`: it concerns a person presumed living now. */
export function fileWithheld(resource: ResourceDeclaration, record: ResourceRecord, redaction: Redaction | undefined): Promise<boolean> | false {

    return redaction !== undefined && storedRecordConcernsLivingPerson(resource, record, redaction);
}
