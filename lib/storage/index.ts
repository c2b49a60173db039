import type { Readable } from 'stream';

/** A span of bytes, both ends included, as in HTTP's `Range: bytes=start-end`. */
export interface ByteRange {
    start: number;
    end: number;
}

/** A stored file, as `put` returns it. */
export interface StoredBlob {
    /** Where the store keeps it: derived from the content, so equal files share one blob. */
    key: string;
    size: number;
    /** SHA-256 of the content, lower-case hex. */
    sha256: string;
}

/** A blob as `list` finds it. */
export interface ListedBlob {
    key: string;
    /** When its content was last written: a blob `put` again keeps its time. */
    modifiedAt: Date;
}

/**
 * Where uploaded files live. Content-addressed: `put` of the same bytes returns the same
 * key and keeps them once, so several records may share one blob (whoever removes a blob
 * checks first that no record refers to it). LocalDiskStorage is the default; an
 * S3-compatible store implements the same six calls (see docs/architecture/files.md).
 */
export interface FileStorage {
    /** Stores the bytes. A blob is visible only once complete; storing it again is harmless. */
    put(data: Buffer): Promise<StoredBlob>;
    /** Reads the blob, or a range of it; rejects with BlobNotFoundError when there is none. */
    open(key: string, range?: ByteRange): Promise<Readable>;
    /** The blob's size, or null when there is none under that key. */
    stat(key: string): Promise<{ size: number } | null>;
    /** Removes the blob; removing one that is not there is not an error. */
    remove(key: string): Promise<void>;
    /**
     * Every complete blob, in no particular order, read as it goes (S3's ListObjectsV2 gives
     * its pages the same way). A blob put or removed meanwhile may or may not be listed.
     */
    list(): AsyncIterable<ListedBlob>;
    /**
     * Removes what writes cut short left behind (a process that stopped in the middle of a
     * `put`), begun before `before`; resolves to their names. A store whose writes are all or
     * nothing has none: S3's PutObject, or its multipart uploads, which a bucket's
     * AbortIncompleteMultipartUpload rule clears.
     */
    removeIncompleteWrites(before: Date): Promise<string[]>;
}

export class BlobNotFoundError extends Error {

    override readonly name = 'BlobNotFoundError';

    constructor(readonly key: string) {

        super(`No stored file under ${key}.`);
    }
}

/** `ab/cd/abcd…`: two levels of fan-out keep directories small; the full hash names the blob. */
export function contentKey(sha256: string): string {

    return `${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}

const contentKeyShape = /^([0-9a-f]{2})\/([0-9a-f]{2})\/(\1\2[0-9a-f]{60})$/;

/** Whether `key` is a key contentKey() makes: nothing else (`..`, absolute paths, temp files) can name a blob. */
export function isContentKey(key: string): boolean {

    return contentKeyShape.test(key);
}
