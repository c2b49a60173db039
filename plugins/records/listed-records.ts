import { fieldNamesWhere, recordColumns, type ResourceDeclaration } from '../../models/resources';
import { timestampFields } from './cursor';
import type { RecordExtensions } from './extensions';
import type { ListReader } from './list-readers';
import { listColumns, type Statement } from './list-sql';
import { redactedColumn } from './redacted-sql';
import type { RecordRow, SerializedRecord } from './serialized-record';
import { sqlDialects } from './sql-dialects';

/**
 * Reads list statements (list-sql.ts) of one resource and turns their JSON rows into records as
 * the API shows them: a record is its shown columns, copied in order, with the timestamps made ISO
 * and the integers made numbers (PostgreSQL's rows hold texts, sql-dialects.ts); every other
 * value is already in its API form. The stored-file columns that follow are for other plugins'
 * extensions only (a gallery item's URL). A redacted key's rows end with whether the record is
 * redacted (`redacted`), which its records show last.
 */
export function listedRecords(reader: ListReader, dialectName: string, resource: ResourceDeclaration,
    extensions?: RecordExtensions): (statement: Statement, redacted?: boolean) => Promise<SerializedRecord[]> {

    const dialect = sqlDialects[dialectName];
    const columns = listColumns(resource);
    const shown = recordColumns(resource).length;
    const timestamps = columns.flatMap((name, index) => (timestampFields.has(name) ? [index] : []));
    const integerFields = new Set(fieldNamesWhere(resource, (field) => field.type === 'integer'));
    const integers = columns.flatMap((name, index) => (integerFields.has(name) ? [index] : []));
    // One object literal of the shown columns, compiled once per resource: V8 builds it with a fixed shape, where
    // assigning computed keys one by one cost ten times as much. The names are the declaration's, written as JSON strings.
    const literalOf = (entries: readonly (readonly [string, number])[]) => new Function('values', `return { ${entries.map(([name, index]) => `${JSON.stringify(name)}: values[${index}]`).join(', ')} };`) as (values: unknown[]) => SerializedRecord;
    const shownEntries = columns.slice(0, shown).map((name, index) => [name, index] as const);
    const literal = literalOf(shownEntries);
    // A redacted key's rows: the redacted column follows the stored-file columns.
    const redactedIndex = columns.length;
    const redactedLiteral = literalOf([...shownEntries, [redactedColumn, redactedIndex]]);

    /** Makes a row's values those of the API (and of rowOf() after it). */
    const convert = (values: unknown[]) => {

        for (const index of timestamps) {
            values[index] = dialect.isoTimestamp(values[index] as string);
        }

        for (const index of integers) {
            values[index] = values[index] === null ? null : Number(values[index]);
        }
    };

    const recordOf = (values: unknown[]): SerializedRecord => {

        convert(values);
        return literal(values);
    };

    /** SQLite says a condition as 1 or 0, PostgreSQL's texts as `true` or `false`. */
    const redactedRecordOf = (values: unknown[]): SerializedRecord => {

        convert(values);
        values[redactedIndex] = values[redactedIndex] === 1 || values[redactedIndex] === 'true';
        return redactedLiteral(values);
    };

    const rowColumns = (redacted: boolean) => (redacted ? [...columns, redactedColumn] : columns);
    const rowOf = (values: unknown[], redacted: boolean): RecordRow => Object.fromEntries(rowColumns(redacted).map((name, index) => [name, values[index]]));

    return async (statement, redacted = false) => {

        const listed = JSON.parse((await reader.read(statement)).rows) as unknown[][];
        const record = redacted ? redactedRecordOf : recordOf;
        if (!extensions?.serializes(resource.name)) {
            return listed.map(record);
        }

        return listed.map((values) => extensions.serialize(resource.name, rowOf(values, redacted), record(values)));
    };
}
