import Crypto from 'crypto';

import Hapi, { type Server, type ServerInjectResponse, type ServerRoute } from '@hapi/hapi';
import * as OTPAuth from 'otpauth';

import { createUser } from '../../../lib/accounts/users';
import type { User } from '../../../models/user';

export type Form = Record<string, string | string[]>;

/** A test address of its own per client, so sign-in throttling per address never spills between tests. */
export function randomAddress(): string {

    const bytes = Crypto.randomBytes(3);
    return `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`;
}

/**
 * A browser in miniature over server.inject: keeps cookies, sends forms URL-encoded
 * with the CSRF token (the `crumb` cookie's value) unless told not to.
 */
export class SiteClient {

    readonly cookies = new Map<string, string>();

    constructor(private readonly server: Server, readonly remoteAddress = randomAddress()) {}

    get(url: string): Promise<ServerInjectResponse> {

        return this.send('GET', url);
    }

    post(url: string, form: Form = {}, options: { crumb?: boolean } = {}): Promise<ServerInjectResponse> {

        const crumb: Form = options.crumb === false ? {} : { crumb: this.cookies.get('crumb') ?? '' };
        return this.send('POST', url, { ...crumb, ...form });
    }

    /** Sends a form that carries a one-time token (plugins/site/form-tokens.ts), as a browser showing `page` does. */
    async postFrom(page: string, url: string, form: Form = {}): Promise<ServerInjectResponse> {

        return this.post(url, { ...form, form_token: formTokenOn((await this.get(page)).payload) });
    }

    /** The page's form token: a GET sets the crumb cookie first when there is none yet. */
    async ready(url = '/login'): Promise<this> {

        if (!this.cookies.has('crumb')) {
            await this.get(url);
        }

        return this;
    }

    private async send(method: string, url: string, form?: Form): Promise<ServerInjectResponse> {

        const headers: Record<string, string> = {};
        if (this.cookies.size > 0) {
            headers.cookie = cookieHeader(this.cookies);
        }

        let payload: string | undefined;
        if (form) {
            payload = formBody(form);
            headers['content-type'] = 'application/x-www-form-urlencoded';
        }

        const response = await this.server.inject({ method, url, headers, payload, remoteAddress: this.remoteAddress });
        keepCookies(this.cookies, ([] as string[]).concat(response.headers['set-cookie'] ?? []));
        return response;
    }
}

/** The one-time form token a page's forms carry; '' when it has none. */
export function formTokenOn(page: string): string {

    return /name="form_token" value="([^"]*)"/.exec(page)?.[1] ?? '';
}

/** A form URL-encoded, as a browser sends it. */
export function formBody(form: Form): string {

    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
        for (const item of ([] as string[]).concat(value)) {
            body.append(name, item);
        }
    }

    return body.toString();
}

/** The Cookie header that sends back every cookie in `jar`. */
export function cookieHeader(jar: Map<string, string>): string {

    return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** Keeps the cookies a response sets in `jar`, and forgets those it clears. */
export function keepCookies(jar: Map<string, string>, setCookies: string[]): void {

    for (const cookie of setCookies) {
        const [pair] = cookie.split(';');
        const name = pair.slice(0, pair.indexOf('='));
        const value = pair.slice(pair.indexOf('=') + 1);
        if (!value || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) {
            jar.delete(name);
        }
        else {
            jar.set(name, value);
        }
    }
}

let userCount = 0;

/** A user of the hosted site with a password of its own. */
export async function siteAccount(server: Server, options: { role: 'manager' | 'member' | 'super-admin'; familyLongId?: string; email?: string }): Promise<{ user: User; email: string; password: string }> {

    const email = options.email ?? `user-${Date.now()}-${++userCount}-${Crypto.randomBytes(3).toString('hex')}@example.com`;
    const password = Crypto.randomBytes(12).toString('base64url');
    const user = await createUser(server.app.services.accounts, { email, password, role: options.role, familyLongId: options.familyLongId });
    return { user, email, password };
}

/** A client signed in as a new user of that role. */
export async function signedIn(server: Server, options: { role: 'manager' | 'member' | 'super-admin'; familyLongId?: string }): Promise<SiteClient & { account: Awaited<ReturnType<typeof siteAccount>> }> {

    const account = await siteAccount(server, options);
    const client = await new SiteClient(server).ready();
    const response = await client.post('/login', { email: account.email, password: account.password });
    if (response.statusCode !== 302) {
        throw new Error(`sign-in failed: ${response.statusCode} ${response.payload.slice(0, 200)}`);
    }

    return Object.assign(client, { account });
}

/** The TOTP secret the two-factor enrolment page shows, grouped by four. */
export function secretOn(page: string): string {

    return /data-testid="totp-secret">([A-Z2-7 ]+)</.exec(page)![1];
}

/** The code an authenticator app shows for a secret shown on the enrolment page: now, or `stepsAhead` periods of 30 s later. */
export function appCode(secretShown: string, stepsAhead = 0): string {

    return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secretShown.replace(/\s/g, '')) }).generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}

/** A bare server whose `site-session` strategy admits everyone, with `routes`: for the start-up checks of the site's routes. */
export function siteSessionServer(routes: ServerRoute | ServerRoute[]): Server {

    const server = Hapi.server();
    server.auth.scheme('test', () => ({ authenticate: (_request, h) => h.authenticated({ credentials: {} }) }));
    server.auth.strategy('site-session', 'test');
    server.route(routes);
    return server;
}
