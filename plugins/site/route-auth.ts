import type { RouteOptions, Server } from '@hapi/hapi';

/** Route `auth` settings of the site's pages: scopes are data on the route, never checks in handlers. */
export const signInPage: RouteOptions['auth'] = { strategy: 'site-session', mode: 'try' };
export const signedInPage: RouteOptions['auth'] = { strategy: 'site-session' };
export const managerPage: RouteOptions['auth'] = { strategy: 'site-session', access: { scope: ['manager'] } };
export const superAdminPage: RouteOptions['auth'] = { strategy: 'site-session', access: { scope: ['super-admin'] } };

/** Areas behind sign-in; `/manage` and `/admin` also need a role (`/messages` says in words who may use it: messages/actor.ts). */
const signedInAreas = ['/account', '/device', '/messages', '/manage', '/admin'];
const roleAreas = ['/manage', '/admin'];

const under = (path: string, area: string) => path === area || path.startsWith(`${area}/`);

/**
 * Refuses to start when a route of the signed-in areas (this plugin's or another's,
 * such as the webhooks JSON routes under /manage) could be reached without signing in,
 * or, under /manage and /admin, without a role scope.
 */
export function assertPagesSignedIn(server: Server): void {

    const problems: string[] = [];
    for (const route of server.table()) {
        if (!signedInAreas.some((area) => under(route.path, area))) {
            continue;
        }

        const auth = route.settings.auth;
        const name = `${route.method.toUpperCase()} ${route.path}`;
        if (!auth || auth.mode !== 'required' || auth.strategies?.length !== 1 || auth.strategies[0] !== 'site-session') {
            problems.push(`${name} must require auth strategy 'site-session'`);
        }
        else if (roleAreas.some((area) => under(route.path, area)) && !auth.access?.some((access) => access.scope)) {
            problems.push(`${name} must restrict auth.access.scope (manager, super-admin…)`);
        }
    }

    if (problems.length > 0) {
        throw new Error(`Hosted site: ${problems.join('; ')}`);
    }
}
