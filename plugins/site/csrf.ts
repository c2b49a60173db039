import type { Request, RequestRoute, Server } from '@hapi/hapi';
import Crumb from '@hapi/crumb';

/** Routes that authenticate with the site's cookie are the ones a forged cross-site request could use. */
export function usesSiteSession(route: RequestRoute): boolean {

    const auth = route.settings.auth;
    return Boolean(auth && auth.strategies?.includes('site-session'));
}

/**
 * CSRF protection (@hapi/crumb) for every route that uses `site-session`: forms send
 * the token as the `crumb` field; JSON routes opt into `plugins: { crumb: { restful: true } }`
 * and send it as `X-CSRF-Token` (pages carry it in `<meta name="csrf-token">`).
 * API-key routes are skipped: a bearer header is no ambient credential.
 */
export async function registerCsrf(server: Server, secure: boolean): Promise<void> {

    await server.register({
        plugin: Crumb,
        options: {
            key: 'crumb',
            addToViewContext: false,            // views.ts adds it to every page, error pages included
            cookieOptions: { path: '/', isSecure: secure, isHttpOnly: true, isSameSite: 'Strict' },
            skip: (request?: Request) => !usesSiteSession(request!.route)
        }
    });
}
