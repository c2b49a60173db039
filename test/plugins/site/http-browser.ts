import type { Server } from '@hapi/hapi';

import { cookieHeader, formBody, keepCookies, type Form } from './client';

/** An answer as a browser gets it over HTTP: status, headers and the page's text. */
export interface PageAnswer {
    status: number;
    location: string | null;
    headers: Headers;
    text: string;
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

    /** Signs in as a person does: the sign-in page first (its CSRF cookie), then the form. */
    async signIn(email: string, password: string): Promise<this> {

        await this.get('/login');
        const answer = await this.post('/login', { email, password });
        if (answer.status !== 302) {
            throw new Error(`sign-in failed: ${answer.status} ${answer.text.slice(0, 200)}`);
        }

        return this;
    }

    private async send(method: string, path: string, form?: Form): Promise<PageAnswer> {

        const headers: Record<string, string> = {};
        if (this.cookies.size > 0) {
            headers.cookie = cookieHeader(this.cookies);
        }

        if (form) {
            headers['content-type'] = 'application/x-www-form-urlencoded';
        }

        const response = await fetch(`${this.server.info.uri}${path}`, { method, headers, body: form && formBody(form), redirect: 'manual' });
        keepCookies(this.cookies, response.headers.getSetCookie());
        return { status: response.status, location: response.headers.get('location'), headers: response.headers, text: await response.text() };
    }
}
