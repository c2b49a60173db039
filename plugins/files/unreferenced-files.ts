import type { ListedBlob } from '../../lib/storage';
import { referencedKeys, releaseBlob } from './blobs';
import type { FilesContext } from './context';

// Blobs looked up together: one query per file resource spares each referenced blob a transaction of its own.
const BATCH_SIZE = 500;

/**
 * Removes stored files that no record holds and that were written before the policy's grace
 * period. An upload writes its file before its record's transaction, so a process that stopped
 * in between leaves one behind that nothing would ever remove. Most blobs are referenced: a
 * batched lookup without locks sets those aside (keeping a blob is always safe), and
 * releaseBlob() decides on the rest under each blob's lock, as after a deletion, so an upload
 * reusing a blob meanwhile keeps it. What writes cut short left behind, from before the grace
 * period, goes too. Ends early, after the blob at hand, once `signal` aborts. Resolves to the
 * blobs it removed.
 */
export async function sweepUnreferencedFiles(context: FilesContext, signal: AbortSignal): Promise<ListedBlob[]> {

    const cutoff = Date.now() - context.policies().files.unreferenced_files.grace_seconds * 1000;
    const removed: ListedBlob[] = [];
    for await (const batch of batches(context.storage.list(), (blob) => blob.modifiedAt.getTime() < cutoff)) {
        const referenced = await referencedKeys(context, batch.map((blob) => blob.key));
        for (const blob of batch) {
            if (signal.aborted) {
                return removed;
            }

            if (!referenced.has(blob.key) && await releaseBlob(context, blob.key)) {
                context.log(['files'], `removed stored file ${blob.key}: no record holds it (written ${blob.modifiedAt.toISOString()})`);
                removed.push(blob);
            }
        }
    }

    for (const name of await context.storage.removeIncompleteWrites(new Date(cutoff))) {
        context.log(['files'], `removed ${name}: a write of a stored file that was cut short`);
    }

    return removed;
}

/** The listed blobs that pass `keep`, in arrays of up to BATCH_SIZE. */
async function* batches(blobs: AsyncIterable<ListedBlob>, keep: (blob: ListedBlob) => boolean): AsyncIterable<ListedBlob[]> {

    let batch: ListedBlob[] = [];
    for await (const blob of blobs) {
        if (keep(blob)) {
            batch.push(blob);
        }

        if (batch.length === BATCH_SIZE) {
            yield batch;
            batch = [];
        }
    }

    if (batch.length > 0) {
        yield batch;
    }
}
