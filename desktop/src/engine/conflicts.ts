import { newIdempotencyKey } from '../sdk/idempotency-key';
import type { Conflict } from '../sdk/types';
import type { EngineContext } from './context';

export type ConflictAction = 'retry' | 'discard' | { edit: string };

/** Retries, edits or discards a conflict (each under a new Idempotency-Key), and caches what came of it. */
export async function resolveConflict(context: EngineContext, conflictId: string, action: ConflictAction): Promise<Conflict> {

    const { api, store } = context;
    const key = newIdempotencyKey();
    let conflict: Conflict;
    if (action === 'discard') {
        conflict = await api.discardConflict(conflictId, key);
    }
    else {
        const answer = action === 'retry' ? await api.retryConflict(conflictId, key) : await api.editConflict(conflictId, action.edit, key);
        if (answer.message) {
            await store.putMessages([answer.message]);
        }

        conflict = answer.conflict;
    }

    await store.putConflicts([conflict]);
    context.emit('conflict', conflict);
    return conflict;
}
