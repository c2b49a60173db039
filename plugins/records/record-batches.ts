import { redactedFields } from '../../lib/privacy/redaction';
import type { ResourceDeclaration } from '../../models/resources';
import type { Cursor } from './cursor';
import { listStatement, type ListOptions, type Statement } from './list-sql';
import { redactedColumn } from './redacted-sql';
import { sortValue } from './serialize';
import type { SerializedRecord } from './serialized-record';

/** How many records an export reads per query: small enough to stream, large enough to be cheap. */
export const exportBatchSize = 2000;

/** Where a list reads from: one resource's table, in the API's serialisation. */
export interface RecordSource {
    resource: ResourceDeclaration;
    dialect: string;
    /** The records a list statement finds, serialised; `redacted`: the statement is a redacted key's (list-sql.ts). */
    find(statement: Statement, redacted?: boolean): Promise<SerializedRecord[]>;
}

export interface Page {
    records: SerializedRecord[];
    /** Whether more records follow. */
    more: boolean;
}

/** One keyset page: up to `limit` records after `options.after`. */
export async function readPage(source: RecordSource, options: ListOptions, limit: number): Promise<Page> {

    const records = await source.find(listStatement(source.resource, options, source.dialect, limit + 1), options.redaction !== undefined);
    return { records: records.slice(0, limit), more: records.length > limit };
}

/** The cursor that continues a list of `resource` after `record`: a redacted record's hidden sort value is empty, as its list sorted it. */
export function cursorAfter(resource: ResourceDeclaration, options: ListOptions, record: SerializedRecord): Cursor {

    const value = record[redactedColumn] === true && redactedFields(resource).includes(options.sort) ? null : sortValue(record, options.sort);
    return { sort: options.sort, direction: options.direction, value, id: record.id };
}

/**
 * Every record the list matches, at most `limit`, read page after page in keyset order. The next
 * page is asked for before this one is handed out, so the database works while the caller renders.
 */
export async function* recordBatches(source: RecordSource, options: ListOptions, limit = Infinity, batchSize = exportBatchSize): AsyncGenerator<SerializedRecord[]> {

    const read = (after: Cursor | undefined, remaining: number) => readPage(source, { ...options, after }, Math.min(batchSize, remaining));
    let remaining = limit;
    let next: Promise<Page> | undefined = read(options.after, remaining);
    while (next) {
        const { records, more }: Page = await next;
        remaining -= records.length;
        next = more && remaining > 0 ? read(cursorAfter(source.resource, options, records[records.length - 1]), remaining) : undefined;
        next?.catch(() => undefined);          // a reader that stops early never awaits it: its failure is nobody's to report
        if (records.length > 0) {
            yield records;
        }
    }
}

/**
 * The records of a whole list one by one, for an export; every iteration reads them afresh. A row
 * at hand is handed out as an already settled promise: the per-row resumption of an async generator
 * (`yield* batch`) is a measurable share of an export's time.
 */
export function exportedRecords(source: RecordSource, options: ListOptions, limit?: number): AsyncIterable<SerializedRecord> {

    return {
        [Symbol.asyncIterator](): AsyncIterator<SerializedRecord> {

            const batches = recordBatches(source, options, limit);
            let batch: SerializedRecord[] = [];
            let index = 0;
            const nextBatch = async (): Promise<IteratorResult<SerializedRecord>> => {

                const read = await batches.next();
                if (read.done) {
                    return { value: undefined, done: true };
                }

                batch = read.value;                 // never empty: recordBatches yields only batches with records
                index = 1;
                return { value: batch[0], done: false };
            };

            return {
                next: () => (index < batch.length ? Promise.resolve({ value: batch[index++], done: false }) : nextBatch()),
                return: async () => {

                    await batches.return(undefined);
                    return { value: undefined, done: true };
                }
            };
        }
    };
}
