import { postJson } from './api.js';
import { element, show } from './dom.js';

const form = {
    toggle: document.getElementById('new-conversation'),
    root: document.getElementById('start-form'),
    people: document.getElementById('start-people'),
    nobody: document.getElementById('start-nobody'),
    title: document.getElementById('start-title'),
    cancel: document.getElementById('start-cancel'),
    error: document.getElementById('start-error')
};

function setOpen(open) {

    form.root.hidden = !open;
    form.toggle.setAttribute('aria-expanded', String(open));
    if (!open) {
        form.root.reset();
        show(form.error, '');
    }
}

// "New conversation": one person ticked is the direct conversation with them, several with a title a group.
// The family's people are asked for each time it opens: someone who joined since shows.
export function startForm({ loadPeople, onStarted }) {

    form.toggle.addEventListener('click', async () => {

        if (!form.root.hidden) {
            setOpen(false);
            return;
        }

        let people = [];
        try {
            people = await loadPeople();
        }
        catch (failure) {
            show(form.error, failure.message);
        }

        form.people.replaceChildren(...people.map((person) => element('li', {},
            element('label', {},
                element('input', { type: 'checkbox', name: 'user_ids', value: person.id }),
                element('span', {}, person.email),
                person.blocked ? element('span', { className: 'meta' }, '(you blocked them)') : null))));
        form.nobody.hidden = people.length > 0;
        setOpen(true);
    });

    form.cancel.addEventListener('click', () => setOpen(false));

    form.root.addEventListener('submit', async (event) => {

        event.preventDefault();
        const userIds = [...form.people.querySelectorAll('input:checked')].map((input) => input.value);
        const button = form.root.querySelector('button[type="submit"]');
        button.disabled = true;
        try {
            const started = await postJson('/api/conversations', { user_ids: userIds, title: form.title.value });
            setOpen(false);
            await onStarted(started.data);
        }
        catch (failure) {
            show(form.error, failure.message);
        }
        finally {
            button.disabled = false;
        }
    });
}
