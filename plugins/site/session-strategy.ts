import type { Request, ResponseToolkit, Server, ServerAuthSchemeObject } from '@hapi/hapi';
import Boom from '@hapi/boom';

import { siteCredentials } from './credentials';
import { twoFactorCookie, type SiteContext } from './context';
import { findSession, type SessionCookie } from './sessions';

declare module '@hapi/hapi' {
    interface PluginSpecificConfiguration {
        site?: {
            /** false: a `site-session` route that answers an anonymous client 401, not the sign-in page's redirect (JSON routes). */
            signInRedirect?: false;
        };
    }
}

/** `__Host-` binds the cookie to this host and path `/` over HTTPS only, so no subdomain can set it. */
export function sessionCookieName(secure: boolean): string {

    return secure ? '__Host-fr_session' : 'fr_session';
}

/** Puts a new session's cookie on an answer (sign-in), or takes it off (sign-out). */
export interface SessionCookies {
    set(h: ResponseToolkit, session: SessionCookie): void;
    clear(h: ResponseToolkit): void;
}

/**
 * Where a visitor who is not signed in goes: /login, then back. A form sent after the session
 * ended goes back to the page it was on, never to its action, which may only take a POST.
 */
function signInFirst(request: Request): string {

    const page = ['get', 'head'].includes(request.method) ? request.url : pageOfForm(request);
    return page ? `/login?next=${encodeURIComponent(`${page.pathname}${page.search}`)}` : '/login';
}

/** The page a form was sent from: its Referer, when that is a page of this site. */
function pageOfForm(request: Request): URL | undefined {

    const referer = URL.canParse(request.info.referrer) ? new URL(request.info.referrer) : undefined;
    return referer?.host === request.info.host ? referer : undefined;
}

/**
 * The `site-session` auth strategy: the cookie (iron-sealed by hapi's own cookie handling) names a
 * server-side session, checked on every request, so signing out, or deleting or disabling a user, takes
 * effect at once. Anonymous visitors to a page that requires it go to /login?next=… (signInFirst).
 *
 * A scheme of ours rather than @hapi/cookie's: that plugin adds a decoration made for every request
 * and an onPreAuth step to every route of the server, the API's included, which costs each API
 * request more than a microsecond (docs/architecture/rate-limiting.md, "Steps on every request").
 * Here everything happens in the authentication of the routes that use the strategy. A database
 * that does not answer is thrown as it is, for `errorCodes()` (lib/deployment.ts) to answer as the
 * 503 it is: the visitor stays signed in, the cookie kept.
 */
export function registerSessionStrategy(server: Server, context: SiteContext, cookie: { password: string; secure: boolean }): SessionCookies {

    const name = sessionCookieName(cookie.secure);
    server.state(name, {
        encoding: 'iron',
        password: cookie.password,
        isSecure: cookie.secure,
        isHttpOnly: true,
        // Lax: a link from elsewhere arrives signed in; a cross-site POST does not (and the CSRF check refuses it anyway).
        isSameSite: 'Lax',
        path: '/',
        // A cookie that does not unseal (another secret, tampered with) is taken for none and cleared.
        ignoreErrors: true,
        clearInvalid: true
    });

    const unauthenticated = (request: Request, h: ResponseToolkit) => {

        const error = Boom.unauthorized(null, 'cookie');
        if (request.auth.mode !== 'required' || request.route.settings.plugins?.site?.signInRedirect === false) {
            return h.unauthenticated(error);
        }

        return h.response('You are being redirected…').takeover().redirect(signInFirst(request));
    };

    const scheme: ServerAuthSchemeObject = {
        async authenticate(request, h) {

            const session: unknown = request.state[name];
            if (!session) {
                return unauthenticated(request, h);
            }

            const found = await findSession(context.models, session, false);
            const user = found && await context.models.User.findByPk(found.user_id);
            if (!user || user.disabled_at) {
                h.unstate(name);
                return unauthenticated(request, h);
            }

            return h.authenticated({ credentials: siteCredentials(user) as never, artifacts: session as never });
        }
    };

    server.auth.scheme('site-session-cookie', () => scheme);
    server.auth.strategy('site-session', 'site-session-cookie');

    server.state(twoFactorCookie, {
        encoding: 'iron',
        password: cookie.password,
        isSecure: cookie.secure,
        isHttpOnly: true,
        isSameSite: 'Strict',
        path: '/login',
        clearInvalid: true,
        ignoreErrors: true
    });

    return {
        set: (h, value) => h.state(name, value),
        clear: (h) => h.unstate(name)
    };
}
