import type { Request, Server } from '@hapi/hapi';
import type Boom from '@hapi/boom';

import { apiError } from './errors';
import { isPercentEncodedUtf8 } from './query-string';

const routedMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

// How hapi's router ranks a segment of a route's fingerprint ("/events/?"), best first: literal text,
// text mixed with parameters ("{name}.{ext}"), a parameter, a wildcard.
const segmentRank = (segment: string) => (segment === '#' ? 3 : segment === '?' ? 2 : segment.includes('?') ? 1 : 0);

/** Negative when hapi's router prefers the route of fingerprint `a` to that of `b` for a path both match: the first segment that differs decides. */
function bySpecificity(a: string, b: string): number {

    const aSegments = a.split('/');
    const bSegments = b.split('/');
    const differing = aSegments.findIndex((segment, index) => segmentRank(segment) !== segmentRank(bSegments[index] ?? ''));
    return differing === -1 ? 0 : segmentRank(aSegments[differing]) - segmentRank(bSegments[differing] ?? '');
}

/**
 * The methods the server's routes take at `path`; HEAD wherever GET, as hapi answers it. Only those of the most
 * specific route path that matches: `/events/stream` takes GET alone, though PATCH finds `/events/{id}` there.
 */
export function allowedMethods(server: Server, path: string): string[] {

    const matches = routedMethods.map((method) => ({ method, route: server.match(method, path) }));
    const fingerprints = matches.flatMap(({ route }) => (route ? [route.fingerprint] : []));
    const best = fingerprints.sort(bySpecificity)[0];
    const allowed: string[] = matches.filter(({ route }) => route && route.fingerprint === best).map(({ method }) => method);
    if (allowed[0] === 'GET') {
        allowed.splice(1, 0, 'HEAD');
    }

    return allowed;
}

/**
 * The answer to a request no route took, which hapi gives without a word of why; undefined for
 * any other. A path that takes other methods is a 405 naming them in `Allow` (RFC 9110 §15.5.6),
 * not a 404 a client would read as "no such record"; a path that is not percent-encoded UTF-8 says so.
 * A 404 names the reference that lists the paths (`referenceOf`, by the request's path), if any.
 */
export function unroutedAnswer(request: Request, response: Boom.Boom, referenceOf: (path: string) => string | undefined): Boom.Boom | undefined {

    // hapi's own not-found and bad-path routes have this method; every route of the service has a real one.
    if ((request.route.method as string) !== '_special') {
        return undefined;
    }

    const status = response.output.statusCode;
    if (status !== 400 && status !== 404) {
        return undefined;
    }

    // hapi finds no route for such a path unless one of its parameters takes the bad escape, and server.match throws on it.
    if (!isPercentEncodedUtf8(request.path)) {
        return apiError(400, 'invalid_request', 'The path is not percent-encoded UTF-8: write "%" as %25, and other characters as the %XX escapes of their UTF-8 bytes.');
    }

    if (status === 400) {
        return undefined;
    }

    const method = request.method.toUpperCase();
    const allowed = allowedMethods(request.server, request.path);
    if (allowed.length === 0) {
        const reference = referenceOf(request.path);
        return apiError(404, 'not_found', `No route ${method} ${request.path}${reference ? `: ${reference} lists the API's paths` : ''}.`);
    }

    const error = apiError(405, 'method_not_allowed', `${request.path} does not take ${method}: it takes ${allowed.join(', ')}.`);
    error.output.headers.Allow = allowed.join(', ');
    return error;
}
