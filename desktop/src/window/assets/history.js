import { postJson } from './api.js';
import { conflictCard } from './conflict-card.js';
import { element } from './dom.js';
import { fileSize, outboxState, time } from './words.js';

function attachmentList(message) {

    if (!message.attachments.length) {
        return null;
    }

    return element('ul', { className: 'attachments', 'aria-label': 'Files' }, message.attachments.map((file) => element('li', {},
        element('a', { href: `/api/messages/${encodeURIComponent(message.id)}/attachments/${encodeURIComponent(file.upload_id)}`, download: file.file_name }, file.file_name),
        ` (${fileSize(file.size_bytes)})`)));
}

function messageItem(message, context) {

    const mine = message.sender_id === context.me;
    return element('li', { className: mine ? 'message mine' : 'message', 'data-message-id': message.id },
        element('p', { className: 'meta' }, `${mine ? 'You' : context.nameOf(message.sender_id)} · ${time(message.created_at)}${message.edited_at ? ' · edited' : ''}`),
        message.deleted ? element('p', { className: 'body meta' }, 'This message was deleted.') : element('p', { className: 'body' }, message.body ?? ''),
        message.deleted ? null : attachmentList(message));
}

// A message the service refused outright holds its conversation's queue until the user gives it up.
function discardButton(item, onDiscarded) {

    return element('button', { type: 'button', 'data-action': 'discard-outbox', onclick: async (event) => {

        event.target.disabled = true;
        await postJson(`/api/outbox/${Number(item.seq)}/discard`).catch(() => { });
        onDiscarded();
    } }, 'Discard');
}

export function outboxItem(item, progress, onDiscarded) {

    const state = outboxState(item, progress);
    return element('li', { className: 'message mine pending', 'data-outbox-key': item.idempotencyKey, 'data-outbox-seq': item.seq },
        element('p', { className: 'meta' }, `You · ${time(item.clientTime)}`),
        item.body ? element('p', { className: 'body' }, item.body) : null,
        item.files.length ? element('ul', { className: 'attachments', 'aria-label': 'Files' }, item.files.map((file) => element('li', {}, `${file.name} (${fileSize(file.size)})`))) : null,
        element('p', { className: state.failed ? 'outbox-state failed' : 'outbox-state', role: 'status' }, state.text),
        state.failed && onDiscarded ? discardButton(item, onDiscarded) : null);
}

// The conversation as it reads: its messages oldest first, each conflict after the message it followed, then what
// still waits in the outbox.
export function historyItems(view, context) {

    const after = new Map();
    const unplaced = [];
    const shown = new Set(view.messages.map((message) => message.id));
    for (const conflict of view.conflicts) {
        const key = conflict.after_message_id === null ? 'start' : conflict.after_message_id;
        if (key !== 'start' && !shown.has(key)) {
            unplaced.push(conflict);
            continue;
        }

        after.set(key, [...(after.get(key) ?? []), conflict]);
    }

    if (view.messages.length + view.conflicts.length + view.outbox.length === 0) {
        return [element('li', { className: 'empty meta' }, 'No messages yet: write the first one below.')];
    }

    const card = (conflict) => conflictCard(conflict, { onResolved: context.refresh, edits: context.edits });
    return [
        (after.get('start') ?? []).map(card),
        view.messages.map((message) => [messageItem(message, context), (after.get(message.id) ?? []).map(card)]),
        unplaced.map(card),
        view.outbox.map((item) => outboxItem(item, context.progress.get(item.seq), context.refresh))
    ].flat(Infinity);
}
