import type { Lifecycle, RequestRoute, RouteOptions, RouteRequestExtType, Server, ServerRoute } from '@hapi/hapi';

/*
 * Steps of some routes only. hapi runs a server's extensions (server.ext) on every route, and each
 * costs time on every request even when it does nothing, so a step that only
 * some routes need (a body check, the site's CSRF check) is a route extension of those routes.
 * Start-up checks (routesWithoutStep) make sure no such route was registered without its step.
 */

/** `route` with `method` added as its own `event` step, before any it already has there. */
export function withRouteStep(route: ServerRoute, event: RouteRequestExtType, method: Lifecycle.Method): ServerRoute {

    const options = (route.options ?? {}) as RouteOptions;
    const steps = [options.ext?.[event] ?? []].flat();
    return { ...route, options: { ...options, ext: { ...options.ext, [event]: [{ method }, ...steps] } } };
}

/** The routes of `server` that `needIt` but do not run `method` as their own `event` step: what a start-up check refuses. */
export function routesWithoutStep(server: Server, event: RouteRequestExtType, method: Lifecycle.Method, needIt: (route: RequestRoute) => boolean): RequestRoute[] {

    const runsStep = (route: RequestRoute) => [route.settings.ext?.[event] ?? []].flat().some((step) => [step.method].flat().includes(method));
    return server.table().filter((route) => needIt(route) && !runsStep(route));
}

/** `METHOD /path` of each route, for start-up errors. */
export const routeNames = (routes: RequestRoute[]): string => routes.map((route) => `${route.method.toUpperCase()} ${route.path}`).join(', ');
