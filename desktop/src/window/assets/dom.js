// Builds elements from text only: every string becomes a text node, never markup.
export function element(tag, attributes = {}, ...children) {

    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
        if (value === undefined || value === null || value === false) {
            continue;
        }

        if (name === 'className') {
            node.className = value;
        }
        else if (name.startsWith('on')) {
            node.addEventListener(name.slice(2), value);
        }
        else {
            node.setAttribute(name, value === true ? '' : String(value));
        }
    }

    for (const child of children.flat()) {
        if (child !== undefined && child !== null && child !== false) {
            node.append(typeof child === 'string' ? document.createTextNode(child) : child);
        }
    }

    return node;
}

export function show(node, text) {

    node.textContent = text ?? '';
    node.hidden = !text;
}
