import Crypto from 'crypto';

import type { Lifecycle, Request, ResponseToolkit, RouteOptions, Server, ServerRoute } from '@hapi/hapi';

import { apiError } from './errors';
import { routeNames, routesWithoutStep, withRouteStep } from './route-steps';
import { sameBytes } from './same-bytes';

declare module '@hapi/hapi' {
    interface PluginsStates {
        site?: {
            /** The request's CSRF token, for its page's forms and `<meta name="csrf-token">` (views.ts). */
            csrfToken?: string;
        };
    }
}

/** The cookie that holds a browser's CSRF token, and the form field that sends it back. */
export const csrfCookie = 'crumb';

/** What `newToken()` makes: 32 random bytes in base64url. A cookie of any other shape is taken for none. */
const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

const newToken = () => Crypto.randomBytes(32).toString('base64url');

/** A route whose authentication names `site-session`: a forged cross-site request could ride on its cookie. */
function usesSiteSession(auth: RouteOptions['auth']): boolean {

    if (typeof auth === 'string') {
        return auth === 'site-session';
    }

    return Boolean(auth && (auth.strategy === 'site-session' || auth.strategies?.includes('site-session')));
}

/**
 * The double-submit check (OWASP's "signed double-submit" minus the signature, which a cookie that
 * is HttpOnly, SameSite=Strict and set by this host alone does not need): a page's GET gives the
 * browser a random token in the `crumb` cookie, if it has none, and draws it into the page; a form
 * sends it back as the `crumb` field, a JSON request as `X-CSRF-Token`. Another site can make a
 * browser send the cookie, but can read neither it nor the page, so it cannot send the token back.
 * The field is taken out of the body before the route validates it.
 */
const checkCsrfToken: Lifecycle.Method = (request: Request, h: ResponseToolkit) => {

    const kept: unknown = request.state[csrfCookie];
    let token = typeof kept === 'string' && tokenPattern.test(kept) ? kept : undefined;
    const reading = request.method === 'get' || request.method === 'head';
    if (reading && !token) {
        token = newToken();
        h.state(csrfCookie, token);
    }

    if (token !== undefined) {
        request.plugins.site = { csrfToken: token };         // the answer's page draws its forms with it, a refusal's included
    }

    if (reading) {
        return h.continue;
    }

    const body = typeof request.payload === 'object' && request.payload !== null ? request.payload as Record<string, unknown> : undefined;
    const sent = request.headers['x-csrf-token'] ?? body?.[csrfCookie];
    if (token === undefined || typeof sent !== 'string' || !sameBytes(Buffer.from(sent), Buffer.from(token))) {
        throw apiError(403, 'forbidden', 'This form has no valid CSRF token for this browser: reload the page and send it again.');
    }

    delete body?.[csrfCookie];
    return h.continue;
};

/** Gives the browser a new token (at sign-in): pages it shows from then on carry that one. */
export function rotateCsrfToken(h: ResponseToolkit): void {

    h.state(csrfCookie, newToken());
}

/**
 * CSRF protection for the given routes that use `site-session` (the sign-in forms use it in `try`
 * mode, so they are covered too), as a step of those routes only (lib/route-steps.ts). API-key
 * routes have none: a bearer header is no ambient credential, and they get no cookie. Not
 * @hapi/crumb: a plugin's steps run on every route of the server, and crumb's two would cost every
 * API request (docs/architecture/rate-limiting.md, "Steps on every request").
 */
export function withCsrfCheck(routes: ServerRoute[]): ServerRoute[] {

    return routes.map((route) => (usesSiteSession((route.options as RouteOptions | undefined)?.auth) ? withRouteStep(route, 'onPostAuth', checkCsrfToken) : route));
}

/** The CSRF cookie: HttpOnly (the token reaches scripts through the page), SameSite=Strict. */
export function declareCsrfCookie(server: Server, secure: boolean): void {

    server.state(csrfCookie, { path: '/', isSecure: secure, isHttpOnly: true, isSameSite: 'Strict', ignoreErrors: true, clearInvalid: true });
}

/** Refuses to start when a route of any plugin uses `site-session` without the CSRF check (registered other than through withCsrfCheck()). */
export function assertCsrfChecked(server: Server): void {

    const unchecked = routesWithoutStep(server, 'onPostAuth', checkCsrfToken, (route) => usesSiteSession(route.settings.auth as RouteOptions['auth']));
    if (unchecked.length > 0) {
        throw new Error(`Hosted site: ${routeNames(unchecked)} use${unchecked.length === 1 ? 's' : ''} site-session without the CSRF check: register ${unchecked.length === 1 ? 'it' : 'them'} through withCsrfCheck()`);
    }
}
