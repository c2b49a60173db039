import type { Server } from '@hapi/hapi';

import { cookieHeader, formBody, keepCookies, type Form } from './client';

/** An answer as a browser gets it over HTTP: status, headers and the page's text. */
export interface PageAnswer {
    status: number;
    location: string | null;
    headers: Headers;
    text: string;
    /** The answer's bytes, for a download that is no text. */
    bytes: Buffer;
}

/**
 * A browser reaching the listening server over real HTTP on loopback: it keeps cookies, follows no redirect by
 * itself, and sends forms URL-encoded with the CSRF token (the `crumb` cookie's value) unless told not to.
 */
export class HttpBrowser {

    readonly cookies = new Map<string, string>();

    constructor(private readonly server: Server) {}

    get(path: string): Promise<PageAnswer> {

        return this.send('GET', path);
    }

    post(path: string, form: Form = {}, options: { crumb?: boolean } = {}): Promise<PageAnswer> {

        const crumb: Form = options.crumb === false ? {} : { crumb: this.cookies.get('crumb') ?? '' };
        return this.send('POST', path, { ...crumb, ...form });
    }

    /** Sends a form as `multipart/form-data`, as a form with a file input does: its fields, each file with a name and a type, and the CSRF token unless told not to. */
    postMultipart(path: string, form: Form, files: { field: string; name: string; type?: string; bytes: Buffer }[], options: { crumb?: boolean } = {}): Promise<PageAnswer> {

        const body = new FormData();
        if (options.crumb !== false) {
            body.append('crumb', this.cookies.get('crumb') ?? '');
        }

        for (const [name, value] of Object.entries(form)) {
            for (const each of Array.isArray(value) ? value : [value]) {
                body.append(name, String(each));
            }
        }

        for (const file of files) {
            body.append(file.field, new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
        }

        return this.send('POST', path, body);
    }

    /** Signs in as a person does: the sign-in page first (its CSRF cookie), then the form. */
    async signIn(email: string, password: string): Promise<this> {

        await this.get('/login');
        const answer = await this.post('/login', { email, password });
        if (answer.status !== 302) {
            throw new Error(`sign-in failed: ${answer.status} ${answer.text.slice(0, 200)}`);
        }

        return this;
    }

    private async send(method: string, path: string, form?: Form | FormData): Promise<PageAnswer> {

        const headers: Record<string, string> = {};
        if (this.cookies.size > 0) {
            headers.cookie = cookieHeader(this.cookies);
        }

        const multipart = form instanceof FormData;
        if (form && !multipart) {
            headers['content-type'] = 'application/x-www-form-urlencoded';
        }

        // fetch writes a FormData's multipart body and its Content-Type (with the boundary) itself.
        const body = multipart ? form : form && formBody(form);
        const response = await fetch(`${this.server.info.uri}${path}`, { method, headers, body, redirect: 'manual' });
        keepCookies(this.cookies, response.headers.getSetCookie());
        const bytes = Buffer.from(await response.arrayBuffer());
        return { status: response.status, location: response.headers.get('location'), headers: response.headers, text: bytes.toString('utf8'), bytes };
    }
}
