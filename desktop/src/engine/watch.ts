import { followStream } from '../sdk/stream';
import { stateNames, type EngineContext } from './context';
import { applyChange, refetch } from './sync';

export interface WatchHooks {
    /** Runs one job at a time on the cache, so that a sync and the stream's changes never interleave. */
    serially<T>(job: () => Promise<T>): Promise<T>;
    /** What a (re)connection sets off: a flush of the outbox (after a first sync, for a cache that has none). */
    catchUp(): Promise<unknown>;
}

/**
 * Follows the recovery stream from the stored cursor until `signal` aborts or the service closes it for good: each
 * change goes to the cache and its cursor is stored; on every (re)connection the client is online again, and the
 * outbox written meanwhile is sent.
 */
export async function watchChanges(context: EngineContext, signal: AbortSignal, hooks: WatchHooks): Promise<{ code: string; message: string }> {

    const { store } = context;
    const cursor = await store.getState<string>(stateNames.syncCursor);
    return followStream(context.api, {
        cursor,
        signal,
        onReady() {

            context.setOnline(true);
            hooks.catchUp().catch(() => undefined);      // its failures stay with the items and show in status
        },
        onState(state) {

            if (state === 'offline') {
                context.setOnline(false);
            }
        },
        onChange: (change) => hooks.serially(async () => {

            await applyChange(context, change);
            await store.setState(stateNames.syncCursor, change.cursor);
        }),
        onReset: (reset) => hooks.serially(async () => {

            await refetch(context);
            await store.setState(stateNames.syncCursor, reset.cursor);
        })
    });
}
