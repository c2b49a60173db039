import Path from 'path';

import Lockfile from 'proper-lockfile';

import type { OutboxFile, OutboxItem } from '../profile/local-store';
import { ApiError, OfflineError } from '../sdk/errors';
import { uploadFile } from '../sdk/uploads';
import type { OutboxItemWire } from '../sdk/types';
import type { EngineContext } from './context';

export interface FlushResult {
    sent: number;
    conflicts: number;
    waiting: number;
    /** Set when another process of the profile holds the outbox (the window, a `watch`): it sends the items. */
    elsewhere?: true;
}

// A busy service (429, 503) or the same key still running elsewhere (409): tried again after a pause, a few times.
const retryStatuses = new Set([409, 429, 503]);
const maxAttempts = 4;

/** How long a flush waits for another process's flush to end (or its killed holder's lock to go stale) before leaving the work to it. */
const otherFlushWait = { retries: 25, minTimeout: 100, maxTimeout: 500 };

/** The profile's outbox lock, held by whoever sends the outbox or drops an item of it; rejects with ELOCKED when held past `retries`. */
export function lockOutbox(profileDir: string, retries: Lockfile.LockOptions['retries'] = 0): Promise<() => Promise<void>> {

    // A killed flusher's lock is taken over after `stale` (its holder refreshes it while alive). Should this process
    // ever stall past it, another may flush beside it: harmless, as items go in order under their keys, so no throw.
    return Lockfile.lock(profileDir, { lockfilePath: Path.join(profileDir, 'outbox.lock'), retries, stale: 5_000, onCompromised: () => undefined });
}

/**
 * Sends the outbox: one item at a time per conversation, so each conversation's messages land in the order written,
 * and the conversations side by side. One process of a profile flushes at a time (a lock file); another waits a
 * few seconds for it, then leaves the work to it. An item whose send fails stops its conversation there: offline, it waits for the
 * next flush; refused (a 4xx of its own), it keeps the error for the user to see and to discard.
 */
export async function flushOutbox(context: EngineContext): Promise<FlushResult> {

    const result: FlushResult = { sent: 0, conflicts: 0, waiting: 0 };
    let release: () => Promise<void>;
    try {
        release = await lockOutbox(context.profile.dir, otherFlushWait);
    }
    catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') {
            throw error;
        }

        result.waiting = (await context.store.outboxItems()).length;
        result.elsewhere = true;
        return result;
    }

    try {
        const byConversation = new Map<string, OutboxItem[]>();
        for (const item of await context.store.outboxItems()) {
            byConversation.set(item.conversationId, [...byConversation.get(item.conversationId) ?? [], item]);
        }

        const failures = await Promise.all([...byConversation.values()].map((items) => flushConversation(context, items, result)));
        result.waiting = (await context.store.outboxItems()).length;
        const unexpected = failures.find((failure) => failure !== undefined);
        if (unexpected) {
            throw unexpected;
        }

        return result;
    }
    finally {
        await release();
    }
}

/** Sends one conversation's items in order; stops at the first that cannot go now. Resolves to an error no item explains. */
async function flushConversation(context: EngineContext, items: OutboxItem[], result: FlushResult): Promise<unknown> {

    for (const item of items) {
        try {
            await sendItem(context, item, result);
            context.setOnline(true);
        }
        catch (error) {
            if (error instanceof OfflineError) {
                context.setOnline(false);
                await setItemState(context, item, { state: 'queued' });
                return undefined;
            }

            if (error instanceof ApiError) {
                await setItemState(context, item, { state: 'queued', lastError: { code: error.code, message: error.message } });
                return undefined;
            }

            await setItemState(context, item, { state: 'queued' });
            return error;
        }

        context.emit('outbox', await context.store.outboxItems(item.conversationId));
    }

    return undefined;
}

/** Sets an item's state, and says so ('outbox': its conversation's items), for a window that shows it. */
async function setItemState(context: EngineContext, item: OutboxItem, patch: Parameters<EngineContext['store']['updateOutboxItem']>[1]): Promise<void> {

    await context.store.updateOutboxItem(item.seq, patch);
    context.emit('outbox', await context.store.outboxItems(item.conversationId));
}

/** Uploads the item's files not uploaded yet, then posts the item alone under its own key, and settles it in the store. */
async function sendItem(context: EngineContext, item: OutboxItem, result: FlushResult): Promise<void> {

    const { api, store } = context;
    const files = item.files.map((file) => ({ ...file }));
    if (files.some((file) => !file.uploadId)) {
        await setItemState(context, item, { state: 'uploading', attempts: item.attempts + 1 });
        for (const file of files) {
            if (!file.uploadId) {
                file.uploadId = await upload(context, item, file, files);
                await store.updateOutboxItem(item.seq, { files });
            }
        }
    }

    await setItemState(context, item, { state: 'sending', attempts: item.attempts + 1 });
    const wire: OutboxItemWire = { idempotency_key: item.idempotencyKey, conversation_id: item.conversationId, client_time: item.clientTime };
    if (item.body !== undefined) {
        wire.body = item.body;
    }

    if (files.length > 0) {
        wire.upload_ids = files.map((file) => file.uploadId!);
    }

    const [answer] = await withRetries(() => api.flushOutbox([wire]));
    if (answer.outcome === 'conflict') {
        await store.completeOutboxItem(item.seq, { conflict: answer.conflict });
        ++result.conflicts;
        context.emit('conflict', answer.conflict);
        return;
    }

    await store.completeOutboxItem(item.seq, { message: answer.message });
    ++result.sent;
}

/** One file of an item, resumed where an earlier attempt (of any process) left it; its upload's url is stored before a byte goes. */
async function upload(context: EngineContext, item: OutboxItem, file: OutboxFile, files: OutboxFile[]): Promise<string> {

    const source = { name: file.name, size: file.size, type: file.type, read: () => context.store.readBlob(file.blobId) };
    const uploaded = await uploadFile(context.api, source, {
        resumeUrl: file.uploadUrl,
        async onCreated(url) {

            file.uploadUrl = url;
            await context.store.updateOutboxItem(item.seq, { files });
        },
        onProgress(sent, total) {

            context.emit('upload-progress', { seq: item.seq, name: file.name, sent, total });
        }
    });
    return uploaded.uploadId;
}

async function withRetries<T>(request: () => Promise<T>): Promise<T> {

    for (let attempt = 1; ; ++attempt) {
        try {
            return await request();
        }
        catch (error) {
            if (!(error instanceof ApiError) || !retryStatuses.has(error.status) || attempt === maxAttempts) {
                throw error;
            }

            const seconds = error.retryAfterSeconds ?? 2 ** (attempt - 1);
            await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        }
    }
}
