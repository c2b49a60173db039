/*
 * Forms of a URL that parsers read differently. Node's WHATWG parser reads
 * `https://93.184.216.34\@127.0.0.1/` as the host 93.184.216.34 (a backslash is a slash in an
 * https URL), Python's urlsplit and many proxies as 127.0.0.1 behind a user name: what the
 * service checks and connects to is not what a receiver, an auditor or another tool reading
 * the stored URL sees. Such forms are refused whole rather than stored for others to misread.
 */

// Characters a WHATWG parser drops or trims silently (tabs, line breaks, the C0 controls and spaces at the ends), and any other space.
const invisibleOrSpace = /[\u0000-\u0020\u007f-\u009f\s]/u;

/** What is wrong with the form of `text`, a URL that parsed, in words; undefined when every parser reads it alike. */
export function ambiguousUrlForm(text: string): string | undefined {

    if (text.includes('\\')) {
        return 'The URL must not contain a backslash: parsers disagree on whether it ends the host.';
    }

    if (invisibleOrSpace.test(text)) {
        return 'The URL must not contain spaces, tabs, line breaks or other control characters: write a space as %20.';
    }

    // The scheme, then exactly two slashes and a host: `https:host` and `https:///host` name the host only to some parsers.
    const authority = /^[a-z][a-z\d+.-]*:\/\/([^/?#]*)/i.exec(text)?.[1];
    if (authority === undefined || authority === '') {
        return 'The URL must be written https://host/path: the scheme, two slashes, then the host.';
    }

    if (authority.includes('@')) {
        return 'The URL must not contain a user name or password.';
    }

    if (authority.includes('%')) {
        return 'The URL\'s host must not be percent-encoded: write its characters themselves.';
    }

    return undefined;
}
