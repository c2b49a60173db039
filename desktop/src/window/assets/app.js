import { getJson, postForm, postJson } from './api.js';
import { element, show } from './dom.js';
import { conflictCard } from './conflict-card.js';
import { historyItems, outboxItem } from './history.js';
import { startForm } from './start-form.js';

const page = {
    account: document.getElementById('account'),
    connection: document.getElementById('connection'),
    offline: document.getElementById('offline-banner'),
    tryAgain: document.getElementById('try-again'),
    error: document.getElementById('page-error'),
    list: document.getElementById('conversation-list'),
    none: document.getElementById('no-conversations'),
    elsewhere: document.getElementById('elsewhere'),
    elsewhereList: document.getElementById('elsewhere-list'),
    title: document.getElementById('conversation-title'),
    history: document.getElementById('history'),
    compose: document.getElementById('compose'),
    body: document.getElementById('compose-body'),
    files: document.getElementById('compose-files'),
    composeError: document.getElementById('compose-error')
};

const state = {
    me: null,
    people: new Map(),
    conversations: [],
    current: null,
    outbox: [],
    // seq of an outbox item → its files' progress, { name: { sent, total } }
    progress: new Map(),
    // conflict id → the text being edited
    edits: new Map()
};

const nameOf = (userId) => state.people.get(userId)?.email ?? 'Someone';

function titleOf(conversation) {

    if (conversation.title) {
        return conversation.title;
    }

    const others = conversation.member_ids.filter((id) => id !== state.me).map(nameOf);
    return others.length ? others.join(', ') : 'Just you';
}

function setOnline(online) {

    page.offline.hidden = online;
    page.connection.textContent = online ? 'Online' : 'Offline';
    document.body.classList.toggle('is-offline', !online);
}

function renderList() {

    page.none.hidden = state.conversations.length > 0;
    page.list.replaceChildren(...state.conversations.map((conversation) => {

        const unread = conversation.unread_count;
        return element('li', {},
            element('button', {
                type: 'button',
                'data-conversation-id': conversation.id,
                'aria-current': conversation.id === state.current ? 'true' : 'false',
                onclick: () => openConversation(conversation.id)
            },
            element('span', { className: 'title' }, titleOf(conversation)),
            unread ? element('span', { className: 'unread', 'aria-label': `${unread} unread` }, String(unread)) : null));
    }));
}

// A conflict whose conversation is not in the list (the user left it, or was taken out) has no history to stand in.
function renderElsewhere(conflicts) {

    const listed = new Set(state.conversations.map((conversation) => conversation.id));
    const elsewhere = conflicts.filter((conflict) => !listed.has(conflict.conversation_id));
    page.elsewhere.hidden = elsewhere.length === 0;
    page.elsewhereList.replaceChildren(...elsewhere.map((conflict) => conflictCard(conflict, { onResolved: () => schedule(true), edits: state.edits })));
}

async function loadList() {

    const [conversations, conflicts] = await Promise.all([getJson('/api/conversations'), getJson('/api/conflicts')]);
    state.conversations = conversations.data;
    renderList();
    renderElsewhere(conflicts.data);
    const current = state.conversations.find((conversation) => conversation.id === state.current);
    if (current?.unread_count && document.visibilityState === 'visible') {
        await markRead(current.id);
    }
}

async function markRead(conversationId) {

    // Offline, the count stays until the service can be told.
    await postJson(`/api/conversations/${encodeURIComponent(conversationId)}/read`).catch(() => { });
}

async function loadConversation() {

    if (!state.current) {
        return;
    }

    const view = await getJson(`/api/conversations/${encodeURIComponent(state.current)}`);
    page.title.textContent = titleOf(view.conversation);
    state.outbox = view.outbox;
    const atBottom = page.history.scrollTop + page.history.clientHeight >= page.history.scrollHeight - 4;
    const editing = document.activeElement?.closest('[data-conflict-id]')?.dataset.conflictId;
    page.history.replaceChildren(...historyItems(view, { me: state.me, nameOf, progress: state.progress, edits: state.edits, refresh: () => schedule(true) }));
    if (editing) {
        page.history.querySelector(`[data-conflict-id="${CSS.escape(editing)}"] textarea`)?.focus();
    }

    if (atBottom) {
        page.history.scrollTop = page.history.scrollHeight;
    }
}

async function openConversation(conversationId) {

    state.current = conversationId;
    page.compose.hidden = false;
    renderList();
    await loadConversation();
    await markRead(conversationId);
    await loadList();
}

// Events come in bursts (a sync, a flush): one reload after them, one at a time so that the last one shows.
let queued = null;
let running = Promise.resolve();
function schedule(withList) {

    if (queued) {
        queued.withList ||= withList;
        return;
    }

    queued = { withList };
    running = running.then(() => new Promise((resolve) => setTimeout(resolve, 50))).then(async () => {

        const { withList: list } = queued;
        queued = null;
        try {
            await Promise.all([list ? loadList() : null, loadConversation()]);
            show(page.error, '');
        }
        catch (failure) {
            show(page.error, failure.message);
        }
    });
}

function showProgress(progress) {

    const parts = state.progress.get(progress.seq) ?? {};
    parts[progress.name] = { sent: progress.sent, total: progress.total };
    state.progress.set(progress.seq, parts);
    const shown = page.history.querySelector(`[data-outbox-seq="${Number(progress.seq)}"]`);
    const item = shown && state.outbox.find((candidate) => candidate.seq === progress.seq);
    if (item) {
        shown.replaceWith(outboxItem({ ...item, state: 'uploading' }, parts));
    }
}

function follow() {

    const events = new EventSource('/events');
    events.addEventListener('online', (event) => setOnline(JSON.parse(event.data)));
    events.addEventListener('change', () => schedule(true));
    events.addEventListener('conflict', () => schedule(true));
    events.addEventListener('outbox', () => schedule(false));
    events.addEventListener('upload-progress', (event) => showProgress(JSON.parse(event.data)));
    events.addEventListener('watch-ended', (event) => show(page.error, `Live updates stopped: ${JSON.parse(event.data).message}`));
}

page.compose.addEventListener('submit', async (event) => {

    event.preventDefault();
    const button = page.compose.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
        await postForm(`/api/conversations/${encodeURIComponent(state.current)}/messages`, new FormData(page.compose));
        page.compose.reset();
        show(page.composeError, '');
        schedule(true);
    }
    catch (failure) {
        show(page.composeError, failure.message);
    }
    finally {
        button.disabled = false;
    }
});

async function loadPeople() {

    const people = await getJson('/api/people');
    state.people = new Map(people.data.map((person) => [person.id, person]));
    return people.data;
}

startForm({
    loadPeople,
    onStarted: (conversation) => openConversation(conversation.id)
});

page.tryAgain.addEventListener('click', async () => {

    page.tryAgain.disabled = true;
    try {
        await postJson('/api/sync');
        show(page.error, '');
    }
    catch (failure) {
        show(page.error, failure.message);
    }
    finally {
        page.tryAgain.disabled = false;
        schedule(true);
    }
});

async function start() {

    const status = await getJson('/api/status');
    state.me = status.profile.userId;
    page.account.textContent = `${status.profile.email} · ${status.profile.familyName}`;
    follow();
    await loadList();
    await loadPeople();
    renderList();
}

start().catch((failure) => show(page.error, failure.message));
