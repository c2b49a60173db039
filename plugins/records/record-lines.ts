import type { ResourceDeclaration } from '../../models/resources';
import type { ListReader } from './list-readers';
import { recordLinesStatement, type ListOptions } from './list-sql';
import type { SerializedRecord } from './serialized-record';
import { recordSeparator } from './sql-dialects';

/** One keyset page as the database wrote its JSON: the records, one a line, without brackets. */
export interface RecordLinesPage {
    lines: string;
    count: number;
    /** The last record, when more follow: where the next page's cursor starts. */
    lastBeforeMore?: SerializedRecord;
}

/**
 * Reads JSON pages of a resource that no extension adds to, as the database wrote them
 * (list-sql.ts, recordLinesStatement()): the page goes out without being parsed into records
 * and written again, a large share of a list request's main-thread time. Only the last
 * record is parsed, and only when a next page needs its cursor.
 */
export function recordLinesReader(reader: ListReader, dialectName: string, resource: ResourceDeclaration): (options: ListOptions, limit: number) => Promise<RecordLinesPage> {

    return async (options, limit) => {

        const { rows, count } = await reader.read(recordLinesStatement(resource, options, dialectName, limit + 1));
        if (count! <= limit) {
            return { lines: rows, count: count! };
        }

        const lines = rows.slice(0, rows.lastIndexOf(recordSeparator));
        const lastStart = lines.lastIndexOf(recordSeparator);
        const last = lines.slice(lastStart < 0 ? 0 : lastStart + recordSeparator.length);
        return { lines, count: limit, lastBeforeMore: JSON.parse(last) as SerializedRecord };
    };
}
