/** `a`, `a and b`, `a, b and c` (or with `or`), for descriptions. */
export function inWords(items: readonly string[], conjunction: 'and' | 'or'): string {

    return items.length > 1 ? `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}` : items.join('');
}
