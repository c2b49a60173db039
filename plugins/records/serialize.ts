import type { ResourceRecord } from '../../models/resource-record';
import type { ResourceDeclaration } from '../../models/resources';
import type { RecordExtensions } from './extensions';

export type SerializedRecord = Record<string, unknown> & { id: string };
/** A record's columns as plain values (a row read with `raw: true`, or a model instance's plain copy). */
export type RecordRow = Readonly<Record<string, unknown>>;

/** A record's declared and system fields as the API shows them, each column read through `column`. */
function serializedColumns(resource: ResourceDeclaration, column: (name: string) => unknown): SerializedRecord {

    const serialized: SerializedRecord = { id: column('id') as string };
    for (const [name, field] of Object.entries(resource.fields)) {
        const value = column(name) ?? null;
        serialized[name] = field.type === 'integer' && value !== null ? Number(value) : value;     // PostgreSQL returns BIGINT as text
    }

    serialized.revision = Number(column('revision'));
    serialized.created_at = new Date(column('created_at') as Date).toISOString();
    serialized.updated_at = new Date(column('updated_at') as Date).toISOString();
    return serialized;
}

/**
 * A row as the API shows it: its declared fields and the system fields, never the tenant column
 * nor internal ones; then whatever other plugins' extensions add (a gallery item's URL). Lists
 * read plain rows: building a model instance for each row costs more than the rest of a page.
 */
export function serializeRow(resource: ResourceDeclaration, row: RecordRow, extensions?: RecordExtensions): SerializedRecord {

    const serialized = serializedColumns(resource, (name) => row[name]);
    return extensions ? extensions.serialize(resource.name, row, serialized) : serialized;
}

/** A model instance as the API shows it (see serializeRow). */
export function serializeRecord(resource: ResourceDeclaration, record: ResourceRecord, extensions?: RecordExtensions): SerializedRecord {

    return serializeRow(resource, record.get({ plain: true }) as RecordRow, extensions);
}

/** The sort value of a record as a cursor keeps it. */
export function sortValue(record: SerializedRecord, sort: string): string | number | null {

    return (record[sort] ?? null) as string | number | null;
}
