// Optional: copy buttons. Every page works without this script.
document.documentElement.classList.add('js');
document.addEventListener('click', (event) => {

    const button = event.target.closest('[data-copy-target]');
    if (!button) {
        return;
    }

    const target = document.getElementById(button.dataset.copyTarget);
    const text = 'value' in target ? target.value : target.innerText;
    navigator.clipboard.writeText(text).then(() => {

        const label = button.textContent;
        button.textContent = 'Copied';
        setTimeout(() => {

            button.textContent = label;
        }, 2000);
    });
});

// Optional: a form that changes something is sent once. A double click would otherwise make two
// keys or two endpoints (the first never shown), or rotate a secret twice, dropping at once the
// secret the receiver still checks. The forms that show something once carry a one-time token
// too (plugins/site/form-tokens.ts), so the server does their work once whatever is sent; but the
// browser would show its answer to the second send (409), not the first one's key. A page restored
// by Back can send its forms again.
document.addEventListener('submit', (event) => {

    const form = event.target;
    if (form.method !== 'post') {
        return;
    }

    if (form.dataset.sent) {
        event.preventDefault();
        return;
    }

    form.dataset.sent = 'true';
});
window.addEventListener('pageshow', (event) => {

    if (event.persisted) {
        document.querySelectorAll('form[data-sent]').forEach((form) => delete form.dataset.sent);
    }
});
