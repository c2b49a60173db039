import type { Request, Server } from '@hapi/hapi';
import Cookie from '@hapi/cookie';

import { databaseUnavailable } from '../../lib/database-unavailable';
import { siteCredentials } from './credentials';
import { twoFactorCookie, type SiteContext } from './context';
import { findSession } from './sessions';

/** `__Host-` binds the cookie to this host and path `/` over HTTPS only, so no subdomain can set it. */
export function sessionCookieName(secure: boolean): string {

    return secure ? '__Host-fr_session' : 'fr_session';
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
 * A session that could not be checked because the database does not answer. @hapi/cookie takes any
 * error of `validate()` for an invalid session, clears the cookie and sends the visitor to /login: every
 * signed-in manager would be signed out by a database restart. It rethrows JavaScript's own errors
 * (@hapi/bounce's "system" errors) instead, for hapi to answer, hence a TypeError; its cause is the
 * database's error, which `errorCodes()` (lib/deployment.ts) finds and answers as the 503 it is.
 */
class SessionNotChecked extends TypeError {
    constructor(cause: unknown) {

        super('The session could not be checked: the database does not answer', { cause });
        this.name = 'SessionNotChecked';
    }
}

/**
 * The `site-session` auth strategy (@hapi/cookie): the cookie names a server-side
 * session, checked on every request, so signing out or deleting a user takes effect
 * at once. Anonymous visitors to a page that requires it go to /login?next=… (signInFirst).
 */
export async function registerSessionStrategy(server: Server, context: SiteContext, cookie: { password: string; secure: boolean }): Promise<void> {

    await server.register(Cookie);
    server.auth.strategy('site-session', 'cookie', {
        cookie: {
            name: sessionCookieName(cookie.secure),
            password: cookie.password,
            isSecure: cookie.secure,
            isHttpOnly: true,
            // Lax: a link from elsewhere arrives signed in; a cross-site POST does not (and crumb refuses it anyway).
            isSameSite: 'Lax',
            path: '/',
            clearInvalid: true
        },
        redirectTo: (request?: Request) => signInFirst(request!),
        async validate(_request, session) {

            try {
                const found = await findSession(context.models, session, false);
                const user = found && await context.models.User.findByPk(found.user_id);
                return user ? { isValid: true, credentials: siteCredentials(user) as never } : { isValid: false };
            }
            catch (error) {
                throw databaseUnavailable(error) ? new SessionNotChecked(error) : error;
            }
        }
    });

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
}
