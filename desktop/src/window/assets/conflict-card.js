import { postJson } from './api.js';
import { element, show } from './dom.js';
import { conflictReason, time } from './words.js';

const actionLabels = { retry: 'Retry', edit: 'Edit', discard: 'Discard' };

// A conflict where its message would have been: why it was not sent, the item as it was written, and what can be done.
// `edits` holds the texts being edited (conflict id → text): the page is drawn again on every change, and they stay.
export function conflictCard(conflict, { onResolved, edits }) {

    const error = element('p', { className: 'compose-error', role: 'alert', hidden: true });
    const files = conflict.item.upload_ids?.length ?? 0;
    const editor = element('textarea', { 'aria-label': 'Edited text', rows: 3, maxlength: 4000 });
    editor.value = edits.get(conflict.id) ?? conflict.item.body ?? '';
    editor.addEventListener('input', () => edits.set(conflict.id, editor.value));
    const editForm = element('form', { className: 'conflict-edit', hidden: !edits.has(conflict.id), onsubmit: (event) => {

        event.preventDefault();
        resolve({ action: 'edit', body: editor.value });
    } }, editor, element('button', { type: 'submit' }, 'Send edited'));

    const card = element('li', { className: 'conflict', 'data-conflict-id': conflict.id, 'aria-label': 'A message that was not sent' },
        element('p', { className: 'conflict-reason' }, conflictReason(conflict.reason)),
        conflict.message ? element('p', { className: 'meta' }, conflict.message) : null,
        element('p', { className: 'meta' }, `Written ${time(conflict.item.client_time)}`),
        element('p', { className: 'body' }, conflict.item.body ?? ''),
        files ? element('p', { className: 'meta' }, files === 1 ? 'With 1 file.' : `With ${files} files.`) : null,
        element('div', { className: 'conflict-actions' }, conflict.actions.map((action) => element('button', {
            type: 'button',
            'data-action': action,
            onclick: () => (action === 'edit' ? toggleEditor() : resolve({ action }))
        }, actionLabels[action] ?? action))),
        editForm,
        error);

    function toggleEditor() {

        editForm.hidden = !editForm.hidden;
        if (editForm.hidden) {
            edits.delete(conflict.id);
            return;
        }

        edits.set(conflict.id, editor.value);
        editor.focus();
    }

    async function resolve(choice) {

        card.querySelectorAll('button').forEach((button) => (button.disabled = true));
        try {
            await postJson(`/api/conflicts/${encodeURIComponent(conflict.id)}/resolve`, choice);
            show(error, '');
            edits.delete(conflict.id);
            onResolved();
        }
        catch (failure) {
            show(error, failure.message);
        }
        finally {
            card.querySelectorAll('button').forEach((button) => (button.disabled = false));
        }
    }

    return card;
}
