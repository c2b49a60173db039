// The window server's JSON routes. A change is sent as JSON (or as the form of a message) from this origin,
// which is what the server asks of it.
async function answer(response) {

    if (response.status === 204) {
        return null;
    }

    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
        throw new Error(data.message ?? `The window's server answered ${response.status}.`);
    }

    return data;
}

export async function getJson(path) {

    return answer(await fetch(path, { headers: { accept: 'application/json' } }));
}

export async function postJson(path, body = {}) {

    return answer(await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) }));
}

export async function postForm(path, form) {

    return answer(await fetch(path, { method: 'POST', headers: { accept: 'application/json' }, body: form }));
}
