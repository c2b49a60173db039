import type { ByteRange } from '../../lib/storage';

/** The client asked for no bytes of the file: a range starting past its end, or an empty suffix. 416. */
export const unsatisfiable = Symbol('unsatisfiable');

/**
 * The one range of `Range: bytes=…` (RFC 9110 §14.1.2) within a file of `size` bytes:
 * `first-last`, `first-` or `-suffixLength`, the end clamped to the file. Undefined (send
 * the whole file, as the RFC allows) when the header is malformed or asks for several ranges.
 */
export function parseByteRange(header: string, size: number): ByteRange | typeof unsatisfiable | undefined {

    // The unit is case-insensitive, like every token of HTTP's grammar (RFC 9110 §14.1); the ranges are
    // a list, where empty elements and the spaces around commas count for nothing (§5.6.1): `bytes=0-9,` is one range.
    const ranges = /^bytes=(.*)$/i.exec(header.trim())?.[1].split(',').map((range) => range.trim()).filter(Boolean) ?? [];
    const match = ranges.length === 1 ? /^(\d*)-(\d*)$/.exec(ranges[0]) : null;
    if (!match || (match[1] === '' && match[2] === '')) {
        return undefined;
    }

    if (match[1] === '') {
        const suffixLength = Number(match[2]);
        return suffixLength === 0 ? unsatisfiable : { start: Math.max(0, size - suffixLength), end: size - 1 };
    }

    const start = Number(match[1]);
    const last = match[2] === '' ? Infinity : Number(match[2]);
    if (last < start) {
        return undefined;
    }

    return start >= size ? unsatisfiable : { start, end: Math.min(last, size - 1) };
}

/** What identifies the version of a file: its strong ETag (quoted) and its Last-Modified date. */
export interface FileValidators {
    etag: string;
    lastModified: string;
}

/**
 * Whether `If-Range` names the version served (RFC 9110 §13.1.5): its ETag, compared strongly (a
 * weak one never matches), or an HTTP date that is exactly its Last-Modified.
 */
function isCurrentVersion(ifRange: string, validators: FileValidators): boolean {

    if (ifRange.startsWith('"') || ifRange.startsWith('W/')) {
        return ifRange === validators.etag;
    }

    const date = Date.parse(ifRange);
    return !Number.isNaN(date) && date === Date.parse(validators.lastModified);
}

/** The range to serve: none when there is no Range header, or when If-Range names another version. */
export function requestedRange(headers: Record<string, unknown>, size: number, validators: FileValidators): ByteRange | typeof unsatisfiable | undefined {

    const range = headers.range;
    const ifRange = headers['if-range'];
    if (typeof range !== 'string' || (ifRange !== undefined && !isCurrentVersion(String(ifRange).trim(), validators))) {
        return undefined;
    }

    return parseByteRange(range, size);
}
