import { isApiTimestamp } from '../../lib/api-timestamp';
import { apiError } from '../../lib/errors';
import { recordId, recordIdPattern } from '../../lib/ids';
import { fieldNamesWhere, maxCharactersOf, type FieldDeclaration, type ResourceDeclaration } from '../../models/resources';
import { isUnstorableText } from '../../lib/storable-text';

/** Where the previous page ended: the sort it was read in, and the last row's sort value and id. */
export interface Cursor {
    sort: string;
    direction: 'asc' | 'desc';
    value: string | number | null;
    id: string;
}

/** System fields holding a moment in time: their sort values are ISO timestamps, compared as dates. */
export const timestampFields = new Set(['created_at', 'updated_at']);

/** A sort value of another kind than the field holds would make the database compare unlike types (a 500 on PostgreSQL). */
function fitsSortField(resource: ResourceDeclaration, sort: string, value: unknown): boolean {

    if (value === null) {
        return true;
    }

    if (timestampFields.has(sort)) {
        return isApiTimestamp(value);
    }

    return resource.fields[sort]?.type === 'integer' ? Number.isSafeInteger(value) : typeof value === 'string';
}

/** Opaque to clients: base64url of a small JSON array. */
export function encodeCursor(cursor: Cursor): string {

    return Buffer.from(JSON.stringify([cursor.sort, cursor.direction, cursor.value, cursor.id])).toString('base64url');
}

/** The most characters a sort value of the field can have: a text's maximum; other values, timestamps included, are shorter than 32. */
const longestSortValue = (field: FieldDeclaration | undefined): number => (field?.type === 'string' || field?.type === 'text' ? maxCharactersOf(field) : 32);

/**
 * The longest cursor encodeCursor() can return for the resource: after its longest sort value,
 * every character written by JSON as six bytes (`\u0001`; one beyond the BMP takes four).
 */
export function longestCursorLength(resource: ResourceDeclaration): number {

    const sorts = fieldNamesWhere(resource, (field) => field.sortable);
    const longestName = sorts.reduce((longest, name) => (name.length > longest.length ? name : longest), '');
    const longestValue = Math.max(...sorts.map((name) => longestSortValue(resource.fields[name])));
    return encodeCursor({ sort: longestName, direction: 'desc', value: '\u0001'.repeat(longestValue), id: recordId(resource.idPrefix) }).length;
}

export function decodeCursor(resource: ResourceDeclaration, text: string, sort: string, direction: 'asc' | 'desc'): Cursor {

    let parts: unknown;
    try {
        parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    }
    catch {
        parts = undefined;
    }

    const notOurs = () => apiError(400, 'invalid_request', 'cursor is not a cursor this API returned.');
    if (!Array.isArray(parts) || parts.length !== 4 || typeof parts[3] !== 'string' || parts.some(isUnstorableText)) {
        throw notOurs();
    }

    if (parts[0] !== sort || parts[1] !== direction) {
        throw apiError(400, 'invalid_request', 'cursor belongs to a different sort or direction: keep the query of the page that returned it.');
    }

    if (!fitsSortField(resource, sort, parts[2])) {
        throw notOurs();
    }

    // Its last record is one of the resource's: a cursor of another list would read this one from some other place.
    if (!recordIdPattern(resource.idPrefix).test(parts[3])) {
        throw apiError(400, 'invalid_request', `cursor does not come from a list of ${resource.name}: use a cursor only with the list that returned it.`);
    }

    return { sort, direction, value: parts[2], id: parts[3] };
}
