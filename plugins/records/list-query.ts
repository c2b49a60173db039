import { Op, type Order, type WhereOptions } from 'sequelize';

import { fieldNamesWhere, type ResourceDeclaration } from '../../models/resources';
import type { Cursor } from './cursor';

export interface ListOptions {
    familyLongId: string;
    search?: string;
    sort: string;
    direction: 'asc' | 'desc';
    filters: Record<string, unknown>;
    after?: Cursor;
}

const timestampFields = new Set(['created_at', 'updated_at']);

/** `%` and `_` in the search text are literal, not wildcards. */
const likePattern = (term: string) => `%${term.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/** Every word must appear in at least one searchable field (case-insensitive). */
function searchCondition(resource: ResourceDeclaration, search: string, like: symbol): WhereOptions[] {

    const fields = fieldNamesWhere(resource, (field) => field.searchable);
    return search.split(/\s+/).filter(Boolean).slice(0, 8).map((term) => ({
        [Op.or]: fields.map((field) => ({ [field]: { [like]: likePattern(term) } }))
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

    const value = timestampFields.has(field) ? new Date(String(cursor.value)) : cursor.value;
    return {
        [Op.or]: [
            { [field]: { [beyond]: value } },
            { [field]: value, id: { [beyond]: cursor.id } },
            { [field]: null }
        ]
    };
}

/** The WHERE and ORDER BY of a list: always scoped to the family. */
export function listQuery(resource: ResourceDeclaration, options: ListOptions, dialect: string): { where: WhereOptions; order: Order } {

    const conditions: WhereOptions[] = [{ family_long_id: options.familyLongId }];
    for (const [field, value] of Object.entries(options.filters)) {
        conditions.push({ [field]: value });
    }

    if (options.search) {
        conditions.push(...searchCondition(resource, options.search, dialect === 'postgres' ? Op.iLike : Op.like));
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
