/** A name safe to write as one file of a directory, keeping what the person called it: no path, no control characters. */
export function safeFileName(name: string): string {

    const base = name.split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
    return base === '' || base === '.' || base === '..' ? 'attachment' : base;
}
