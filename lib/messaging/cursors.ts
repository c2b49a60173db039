import { ServiceError } from '../errors';

/**
 * A place in a timeline, opaque to clients: a UTC time and a tiebreak (a message id in a history,
 * a change id in the change log), base64url of `time.tiebreak`. The time lets the service tell a
 * cursor past the retention window without looking anything up.
 */
export interface Cursor {
    time: Date;
    tiebreak: string;
}

const cursorText = /^(\d{13})\.([0-9A-Za-z_]{1,40})$/;

export function encodeCursor(cursor: Cursor): string {

    return Buffer.from(`${String(cursor.time.getTime()).padStart(13, '0')}.${cursor.tiebreak}`).toString('base64url');
}

/** 400 invalid_request for text that is not a cursor this service made. */
export function decodeCursor(text: string): Cursor {

    const match = /^[A-Za-z0-9_-]{1,80}$/.test(text) ? cursorText.exec(Buffer.from(text, 'base64url').toString('latin1')) : null;
    if (!match) {
        throw new ServiceError('invalid_request', 'cursor: not a cursor this service gave (pass the `next_cursor` or `cursor` of an earlier answer, unchanged).');
    }

    return { time: new Date(Number(match[1])), tiebreak: match[2] };
}
