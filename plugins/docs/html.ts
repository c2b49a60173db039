/*
 * A tiny HTML builder where escaping is the default: every value interpolated
 * into `html` is escaped unless it is markup that `html` itself built.
 */

export class SafeHtml {
    constructor(readonly markup: string) {}
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

const entities: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;' };

export function escapeHtml(text: string): string {

    return text.replace(/[&<>"']/g, (character) => entities[character]);
}

function render(value: Value): string {

    if (value instanceof SafeHtml) {
        return value.markup;
    }

    if (Array.isArray(value)) {
        return value.map(render).join('');
    }

    return value === null || value === undefined || value === false ? '' : escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {

    return new SafeHtml(strings.reduce((markup, text, index) => markup + render(values[index - 1]) + text));
}

/** Text whose `backtick spans` become <code>, as in the document's descriptions. */
export function prose(text: string | undefined): SafeHtml {

    return html`${(text ?? '').split('`').map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}
