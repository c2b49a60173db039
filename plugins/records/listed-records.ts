import { fieldNamesWhere, recordColumns, type ResourceDeclaration } from '../../models/resources';
import { timestampFields } from './cursor';
import type { RecordExtensions } from './extensions';
import type { ListReader } from './list-readers';
import { listColumns, type Statement } from './list-sql';
import type { RecordRow, SerializedRecord } from './serialized-record';
import { sqlDialects } from './sql-dialects';

/**
 * Reads list statements (list-sql.ts) of one resource and turns their JSON rows into records as
 * the API shows them: a record is its shown columns, copied in order, with the timestamps made ISO
 * and the integers made numbers (PostgreSQL's rows hold texts, sql-dialects.ts); every other
 * value is already in its API form. The stored-file columns that follow are for other plugins'
 * extensions only (a gallery item's URL).
 */
export function listedRecords(reader: ListReader, dialectName: string, resource: ResourceDeclaration,
    extensions?: RecordExtensions): (statement: Statement) => Promise<SerializedRecord[]> {

    const dialect = sqlDialects[dialectName];
    const columns = listColumns(resource);
    const shown = recordColumns(resource).length;
    const timestamps = columns.flatMap((name, index) => (timestampFields.has(name) ? [index] : []));
    const integerFields = new Set(fieldNamesWhere(resource, (field) => field.type === 'integer'));
    const integers = columns.flatMap((name, index) => (integerFields.has(name) ? [index] : []));
    // One object literal of the shown columns, compiled once per resource: V8 builds it with a fixed shape, where
    // assigning computed keys one by one cost ten times as much. The names are the declaration's, written as JSON strings.
    const literal = new Function('values', `return { ${columns.slice(0, shown).map((name, index) => `${JSON.stringify(name)}: values[${index}]`).join(', ')} };`) as (values: unknown[]) => SerializedRecord;

    /** The record of a row's values; it also converts the values themselves, for rowOf() after it. */
    const recordOf = (values: unknown[]): SerializedRecord => {

        for (const index of timestamps) {
            values[index] = dialect.isoTimestamp(values[index] as string);
        }

        for (const index of integers) {
            values[index] = values[index] === null ? null : Number(values[index]);
        }

        return literal(values);
    };

    const rowOf = (values: unknown[]): RecordRow => Object.fromEntries(columns.map((name, index) => [name, values[index]]));

    return async (statement) => {

        const listed = JSON.parse((await reader.read(statement)).rows) as unknown[][];
        if (!extensions?.serializes(resource.name)) {
            return listed.map(recordOf);
        }

        return listed.map((values) => {

            const record = recordOf(values);
            return extensions.serialize(resource.name, rowOf(values), record);
        });
    };
}
