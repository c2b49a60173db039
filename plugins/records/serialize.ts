import { redactedValue, type Redaction } from '../../lib/privacy/redaction';
import type { ResourceRecord } from '../../models/resource-record';
import type { ResourceDeclaration } from '../../models/resources';
import type { RecordExtensions } from './extensions';
import { redactedColumn, replacedColumns } from './redacted-sql';
import type { RecordRow, SerializedRecord } from './serialized-record';

/** How a key that sees living persons redacted sees one record: whether it concerns a living person (record-view.ts). */
export interface RecordView {
    redaction: Redaction;
    living: boolean;
}

/** The row as a redacted record shows it: its hidden fields replaced, no file. */
function redactedRow(resource: ResourceDeclaration, row: RecordRow, redaction: Redaction): RecordRow {

    return { ...row, ...Object.fromEntries(replacedColumns(resource).map((name) => [name, redactedValue(resource, name, redaction)])) };
}

/**
 * A model instance as the API shows it: its declared fields and the system fields, never the
 * tenant column nor internal ones; then whatever other plugins' extensions add (a gallery item's
 * URL). Lists read JSON rows instead (listed-records.ts). With a `view` (a redacted key's), the
 * record ends with `redacted`, and a redacted one shows its hidden fields replaced as lists do.
 */
export function serializeRecord(resource: ResourceDeclaration, record: ResourceRecord, extensions?: RecordExtensions, view?: RecordView): SerializedRecord {

    const stored = record.get({ plain: true }) as RecordRow;
    const row = view ? { ...view.living ? redactedRow(resource, stored, view.redaction) : stored, [redactedColumn]: view.living } : stored;
    const serialized: SerializedRecord = { id: row.id as string };
    for (const [name, field] of Object.entries(resource.fields)) {
        const value = row[name] ?? null;
        serialized[name] = field.type === 'integer' && value !== null ? Number(value) : value;     // PostgreSQL returns BIGINT as text
    }

    serialized.revision = Number(row.revision);
    serialized.created_at = (row.created_at as Date).toISOString();
    serialized.updated_at = (row.updated_at as Date).toISOString();
    if (view) {
        serialized[redactedColumn] = view.living;
    }

    return extensions ? extensions.serialize(resource.name, row, serialized) : serialized;
}

/** The sort value of a record as a cursor keeps it. */
export function sortValue(record: SerializedRecord, sort: string): string | number | null {

    return (record[sort] ?? null) as string | number | null;
}
