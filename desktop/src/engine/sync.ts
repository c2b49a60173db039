import type { Change } from '../sdk/types';
import { stateNames, type EngineContext } from './context';

/**
 * Brings the cache up to date from the stored cursor, page by page until the service has no more. A reset (the cursor
 * is past the service's retention, or from another deployment) and a first sync refetch the conversations and the
 * latest page of each one's history first; the changes then carry on from there.
 */
export async function syncChanges(context: EngineContext): Promise<{ changes: number; reset: boolean }> {

    const { api, store } = context;
    let cursor = await store.getState<string>(stateNames.syncCursor);
    let reset = false;
    let changes = 0;
    if (cursor === undefined) {
        await refetch(context);
    }

    for (;;) {
        const page = await api.sync({ cursor });
        if ('reset' in page) {
            await refetch(context);
            reset = true;
            cursor = page.cursor;
            await store.setState(stateNames.syncCursor, cursor);
            continue;
        }

        for (const change of page.data) {
            await applyChange(context, change);
            ++changes;
        }

        cursor = page.next_cursor;
        await store.setState(stateNames.syncCursor, cursor);
        if (!page.has_more) {
            break;
        }
    }

    await store.setState(stateNames.lastSyncAt, new Date().toISOString());
    return { changes, reset };
}

/** The conversations as they are now, each with the latest page of its history; those no longer listed are dropped. */
export async function refetch(context: EngineContext): Promise<void> {

    const { api, store } = context;
    const conversations = await api.conversations();
    const listed = new Set(conversations.map((conversation) => conversation.id));
    for (const cached of await store.conversations()) {
        if (!listed.has(cached.id)) {
            await store.removeConversation(cached.id);
        }
    }

    await store.putConversations(conversations);
    await Promise.all(conversations.map(async (conversation) => {

        const history = await api.history(conversation.id);
        await store.putMessages(history.data);
    }));

    let cursor: string | undefined;
    do {
        const page = await api.conflicts({ status: 'open', cursor });
        await store.putConflicts(page.data);
        cursor = page.next_cursor ?? undefined;
    }
    while (cursor);
}

/** What each kind of change does to the cache (its record is the record as it is now). */
const changeAppliers: Record<Change['kind'], (context: EngineContext, change: Change) => Promise<void>> = {
    conversation: async ({ store }, change) => {

        if (change.action === 'deleted' || !change.record) {
            await store.removeConversation(change.record_id);
        }
        else {
            await store.putConversations([change.record]);
        }
    },
    // The user's own leaving names the conversation; the others' come with the conversation's own update.
    member: async ({ store }, change) => {

        if (change.action === 'deleted' && change.conversation_id === null) {
            await store.removeConversation(change.record_id);
        }
    },
    message: async ({ store }, change) => {

        if (change.record) {
            await store.putMessages([change.record]);
        }
    },
    conflict: async (context, change) => {

        if (change.record) {
            await context.store.putConflicts([change.record]);
            context.emit('conflict', change.record);
        }
    },
    // People and blocks are not cached: they are asked for when shown.
    block: async () => undefined
};

/** How many applied changes' cursors are remembered: more than a sync page and a stream's catch-up bring at once. */
const rememberedCursors = 5000;

/** One change of sync or the stream, applied to the cache and announced once, however many times it comes. */
export async function applyChange(context: EngineContext, change: Change): Promise<void> {

    const { recentCursors } = context;
    if (recentCursors.has(change.cursor)) {
        return;
    }

    recentCursors.add(change.cursor);
    if (recentCursors.size > rememberedCursors) {
        recentCursors.delete(recentCursors.values().next().value!);
    }

    await changeAppliers[change.kind]?.(context, change);
    context.emit('change', change);
}
