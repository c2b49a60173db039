import { recordColumns, type ResourceDeclaration } from '../../models/resources';
import type { RecordExtensions } from './extensions';
import type { ListReader } from './list-readers';
import { listColumns, type Statement } from './list-sql';
import type { RecordRow, SerializedRecord } from './serialize';

/**
 * Reads list statements (list-sql.ts) of one resource and turns their JSON rows into records as
 * the API shows them. The SQL already gave every value its API form (numbers as numbers, ISO
 * timestamps), so a record is its shown columns, copied in order; the stored-file columns that
 * follow are for other plugins' extensions only (a gallery item's URL).
 */
export function listedRecords(reader: ListReader, resource: ResourceDeclaration, extensions?: RecordExtensions): (statement: Statement) => Promise<SerializedRecord[]> {

    const columns = listColumns(resource);
    const shown = recordColumns(resource).length;
    const recordOf = (values: readonly unknown[]): SerializedRecord => {

        const record = {} as SerializedRecord;
        for (let index = 0; index < shown; index++) {
            record[columns[index]] = values[index];
        }

        return record;
    };

    const rowOf = (values: readonly unknown[]): RecordRow => Object.fromEntries(columns.map((name, index) => [name, values[index]]));

    return async (statement) => {

        const listed = JSON.parse(await reader.read(statement)) as unknown[][];
        if (!extensions?.serializes(resource.name)) {
            return listed.map(recordOf);
        }

        return listed.map((values) => extensions.serialize(resource.name, rowOf(values), recordOf(values)));
    };
}
