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
        setTimeout(() => { button.textContent = label; }, 2000);
    });
});
