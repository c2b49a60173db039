import { pipeline, Transform, type Readable } from 'stream';

/** About what one socket write should carry. */
const chunkSize = 64 * 1024;

/**
 * The renderers produce a small chunk per row; written as they come, each would be a socket
 * write and an HTTP chunk of its own, costing more than the row. This joins them into writes of
 * about 64 KiB (and hands on whatever is left at the end).
 */
export function inLargerChunks(source: Readable): Readable {

    let pending: Buffer[] = [];
    let length = 0;
    const take = () => {

        const joined = Buffer.concat(pending, length);
        pending = [];
        length = 0;
        return joined;
    };

    const joiner = new Transform({
        transform(chunk: Buffer, _encoding, done) {

            pending.push(chunk);
            length += chunk.length;
            done(null, length >= chunkSize ? take() : undefined);
        },
        flush(done) {

            done(null, length > 0 ? take() : undefined);
        }
    });

    pipeline(source, joiner, () => undefined);      // a failure destroys the joiner with it: the caller reports it
    return joiner;
}
