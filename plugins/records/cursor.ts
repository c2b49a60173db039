import { apiError } from '../../lib/errors';

/** Where the previous page ended: the sort it was read in, and the last row's sort value and id. */
export interface Cursor {
    sort: string;
    direction: 'asc' | 'desc';
    value: string | number | null;
    id: string;
}

/** Opaque to clients: base64url of a small JSON array. */
export function encodeCursor(cursor: Cursor): string {

    return Buffer.from(JSON.stringify([cursor.sort, cursor.direction, cursor.value, cursor.id])).toString('base64url');
}

export function decodeCursor(text: string, sort: string, direction: 'asc' | 'desc'): Cursor {

    let parts: unknown;
    try {
        parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    }
    catch {
        parts = undefined;
    }

    if (!Array.isArray(parts) || parts.length !== 4 || typeof parts[3] !== 'string' ||
        !['string', 'number'].includes(typeof parts[2]) && parts[2] !== null) {

        throw apiError(400, 'invalid_request', 'cursor is not a cursor this API returned.');
    }

    if (parts[0] !== sort || parts[1] !== direction) {
        throw apiError(400, 'invalid_request', 'cursor belongs to a different sort or direction: keep the query of the page that returned it.');
    }

    return { sort, direction, value: parts[2], id: parts[3] };
}
