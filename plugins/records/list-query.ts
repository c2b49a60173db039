import { col, fn, Op, where, type Order, type WhereOptions } from 'sequelize';

import { fieldNamesWhere, type ResourceDeclaration } from '../../models/resources';
import { timestampFields, type Cursor } from './cursor';

export interface ListOptions {
    familyLongId: string;
    search?: string;
    sort: string;
    direction: 'asc' | 'desc';
    filters: Record<string, unknown>;
    after?: Cursor;
}

/** Whether a field contains the text, ignoring case; `%` and `_` in the text are literal, not wildcards. */
const containsTextBy: Record<string, (field: string, text: string) => WhereOptions> = {
    // PostgreSQL's LIKE takes a backslash as its escape character by default.
    postgres: (field, text) => ({ [field]: { [Op.iLike]: `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%` } }),
    // SQLite's LIKE has no escape character unless the SQL names one; instr() has no wildcards, and lower() folds case as its LIKE does (ASCII).
    sqlite: (field, text) => where(fn('instr', fn('lower', col(field)), fn('lower', text)), Op.gt, 0)
};

/** Every word must appear in at least one searchable field (case-insensitive). */
function searchCondition(resource: ResourceDeclaration, search: string, dialect: string): WhereOptions[] {

    const fields = fieldNamesWhere(resource, (field) => field.searchable);
    const containsText = containsTextBy[dialect];
    return search.split(/\s+/).filter(Boolean).map((term) => ({
        [Op.or]: fields.map((field) => containsText(field, term))
    }));
}

/*
 * Keyset paging: rows strictly after the cursor in (sort field, id) order, with
 * empty values last in both directions, the same on SQLite and PostgreSQL.
 */
function afterCursor(cursor: Cursor): WhereOptions {

    const beyond = cursor.direction === 'asc' ? Op.gt : Op.lt;
    const field = cursor.sort;
    if (cursor.value === null) {
        return { [field]: null, id: { [beyond]: cursor.id } };
    }

    // One row-value comparison, `(field, id) > (value, id)`: both databases seek an index on (family, field, id)
    // straight to it, where the equivalent ORs made them walk every earlier row of the family.
    const value = timestampFields.has(field) ? new Date(String(cursor.value)) : cursor.value;
    const pastCursor = where(fn('', col(field), col('id')), beyond, fn('', value, cursor.id));

    // The timestamps are never empty; other fields' empty values come last, after every value.
    return timestampFields.has(field) ? pastCursor : { [Op.or]: [pastCursor, { [field]: null }] };
}

/** The WHERE and ORDER BY of a list: always scoped to the family. */
export function listQuery(resource: ResourceDeclaration, options: ListOptions, dialect: string): { where: WhereOptions; order: Order } {

    const conditions: WhereOptions[] = [{ family_long_id: options.familyLongId }];
    for (const [field, value] of Object.entries(options.filters)) {
        conditions.push({ [field]: value });
    }

    if (options.search) {
        conditions.push(...searchCondition(resource, options.search, dialect));
    }

    if (options.after) {
        conditions.push(afterCursor(options.after));
    }

    const direction = options.direction.toUpperCase();
    return {
        where: { [Op.and]: conditions },
        order: [[options.sort, `${direction} NULLS LAST`], ['id', direction]]
    };
}
