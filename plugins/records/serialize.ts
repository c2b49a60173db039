import type { ResourceRecord } from '../../models/resource-record';
import type { ResourceDeclaration } from '../../models/resources';
import type { RecordExtensions } from './extensions';
import type { RecordRow, SerializedRecord } from './serialized-record';


/**
 * A model instance as the API shows it: its declared fields and the system fields, never the
 * tenant column nor internal ones; then whatever other plugins' extensions add (a gallery item's
 * URL). Lists read JSON rows instead (listed-records.ts).
 */
export function serializeRecord(resource: ResourceDeclaration, record: ResourceRecord, extensions?: RecordExtensions): SerializedRecord {

    const row = record.get({ plain: true }) as RecordRow;
    const serialized: SerializedRecord = { id: row.id as string };
    for (const [name, field] of Object.entries(resource.fields)) {
        const value = row[name] ?? null;
        serialized[name] = field.type === 'integer' && value !== null ? Number(value) : value;     // PostgreSQL returns BIGINT as text
    }

    serialized.revision = Number(row.revision);
    serialized.created_at = (row.created_at as Date).toISOString();
    serialized.updated_at = (row.updated_at as Date).toISOString();
    return extensions ? extensions.serialize(resource.name, row, serialized) : serialized;
}

/** The sort value of a record as a cursor keeps it. */
export function sortValue(record: SerializedRecord, sort: string): string | number | null {

    return (record[sort] ?? null) as string | number | null;
}
