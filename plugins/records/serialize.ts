import type { ResourceRecord } from '../../models/resource-record';
import type { ResourceDeclaration } from '../../models/resources';

export type SerializedRecord = Record<string, unknown> & { id: string };

/** A record as the API shows it: its declared fields and the system fields, never the tenant column. */
export function serializeRecord(resource: ResourceDeclaration, record: ResourceRecord): SerializedRecord {

    const serialized: SerializedRecord = { id: record.id };
    for (const name of Object.keys(resource.fields)) {
        serialized[name] = record.get(name) ?? null;
    }

    serialized.revision = record.revision;
    serialized.created_at = new Date(record.created_at).toISOString();
    serialized.updated_at = new Date(record.updated_at).toISOString();
    return serialized;
}

/** The sort value of a record as a cursor keeps it. */
export function sortValue(record: SerializedRecord, sort: string): string | number | null {

    return (record[sort] ?? null) as string | number | null;
}
