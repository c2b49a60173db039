/*
 * Shared helpers of the export format tests: exports fetched the way clients fetch them,
 * CSV parsed back with a real parser, and many persons written at once.
 */
import type { Server, ServerInjectResponse } from '@hapi/hapi';
import { expect } from '@hapi/code';
import { parse } from 'csv-parse/sync';

import { recordId } from '../../../lib/ids';
import { persons } from '../../../models/resources/persons';
import type { FamilyFixture } from '../../helpers/server';
import { dataOf } from '../records/fixtures';

export const bom = '\ufeff';

/** An export that must have succeeded, with its body as text. */
export async function exportText(family: FamilyFixture, url: string, contentType: RegExp): Promise<{ text: string; response: ServerInjectResponse }> {

    const response = await family.inject('GET', url);
    expect(response.statusCode, response.payload).to.equal(200);
    expect(response.headers['content-type']).to.match(contentType);
    return { text: response.rawPayload.toString('utf8'), response };
}

/** CSV rows as objects keyed by the header, parsed by csv-parse (RFC 4180, BOM aware). */
export function parseCsv(text: string): Record<string, string>[] {

    return parse(text, { columns: true, bom: true, relax_column_count: false });
}

/** The header row of a CSV text. */
export function csvHeader(text: string): string[] {

    return parse(text, { bom: true, to_line: 1 })[0];
}

/** What a JSON record looks like once written to CSV and read back: every value a string, none empty for null. */
export function asCsvStrings(record: Record<string, unknown>, columns: readonly string[]): Record<string, string> {

    return Object.fromEntries(columns.map((column) => [column, record[column] === null || record[column] === undefined ? '' : String(record[column])]));
}

/** Every record of a JSON list query, following `next_cursor` page after page. */
export async function jsonList(family: FamilyFixture, path: string, query = ''): Promise<Record<string, unknown>[]> {

    const records: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
        const page = await family.inject('GET', `${path}?${query}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        records.push(...dataOf(page));
        cursor = JSON.parse(page.payload).meta.next_cursor;
    } while (cursor);

    return records;
}

/**
 * `count` persons written straight into the table in bulk, as an import would (no change
 * events: exports do not read them). `values(i)` gives each one's fields.
 */
export async function insertPersons(server: Server, familyLongId: string, count: number, values: (index: number) => Record<string, unknown>): Promise<void> {

    const { models, transaction } = server.app.services;
    const start = Date.now() - count;
    await transaction(async (t) => {

        for (let first = 0; first < count; first += 2000) {
            const rows = Array.from({ length: Math.min(2000, count - first) }, (_, offset) => {

                const index = first + offset;
                const at = new Date(start + index);
                return { id: recordId(persons.idPrefix), family_long_id: familyLongId, revision: 1, created_at: at, updated_at: at, ...values(index) };
            });

            await models.records.persons.bulkCreate(rows, { transaction: t });
        }
    });
}
