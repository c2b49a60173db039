import { pipeline, Transform, type Readable } from 'stream';

/** About what one socket write should carry. */
const chunkSize = 64 * 1024;

/** Bytes, and text written as UTF-8. */
type Chunk = Buffer | string;

/**
 * The renderers produce a small chunk per row; written as they come, each would be a socket
 * write and an HTTP chunk of its own, costing more than the row. This joins them into writes of
 * about 64 KiB (and hands on whatever is left at the end). Text chunks (CSV rows, from an
 * object-mode transform) stay text until a write is due: one join and one UTF-8 encoding per
 * write, where a buffer per row would be a noticeable share of a CSV export's time.
 */
export function inLargerChunks(source: Readable): Readable {

    let pending: Chunk[] = [];
    let onlyText = true;
    let length = 0;
    const take = () => {

        const joined = onlyText ? Buffer.from(pending.join('')) : Buffer.concat(pending.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
        pending = [];
        onlyText = true;
        length = 0;
        return joined;
    };

    const joiner = new Transform({
        decodeStrings: false,
        transform(chunk: Chunk, _encoding, done) {

            pending.push(chunk);
            onlyText &&= typeof chunk === 'string';
            length += chunk.length;             // a string's length is not its UTF-8 size, near enough for "about"
            done(null, length >= chunkSize ? take() : undefined);
        },
        flush(done) {

            done(null, length > 0 ? take() : undefined);
        }
    });

    pipeline(source, joiner, () => undefined);      // a failure destroys the joiner with it: the caller reports it
    return joiner;
}
