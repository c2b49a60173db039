import type { Lifecycle, RequestRoute, RouteOptions, RouteRequestExtType, ServerRoute } from '@hapi/hapi';

/*
 * Steps of some routes only. hapi runs a server's extensions (server.ext) on every route, and each
 * costs about 0.8 µs a request even when it does nothing (bench/README.md), so a step that only
 * some routes need (a body check, the site's CSRF check) is a route extension of those routes.
 * Start-up checks (runsRouteStep) make sure no such route was registered without its step.
 */

/** `route` with `method` added as its own `event` step, before any it already has there. */
export function withRouteStep(route: ServerRoute, event: RouteRequestExtType, method: Lifecycle.Method): ServerRoute {

    const options = (route.options ?? {}) as RouteOptions;
    const steps = [options.ext?.[event] ?? []].flat();
    return { ...route, options: { ...options, ext: { ...options.ext, [event]: [{ method }, ...steps] } } };
}

/** Whether `route` runs `method` as its own `event` step. */
export function runsRouteStep(route: RequestRoute, event: RouteRequestExtType, method: Lifecycle.Method): boolean {

    return [route.settings.ext?.[event] ?? []].flat().some((step) => [step.method].flat().includes(method));
}

/** `METHOD /path` of each route, for start-up errors. */
export const routeNames = (routes: RequestRoute[]): string => routes.map((route) => `${route.method.toUpperCase()} ${route.path}`).join(', ');
