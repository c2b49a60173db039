import type { ReqRef, ReqRefDefaults, Request, Server } from '@hapi/hapi';

import { randomBase62 } from './ids';
import { parseIpAddress, type TrustedProxies } from './trusted-proxies';

declare module '@hapi/hapi' {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars -- an augmentation repeats hapi's type parameters
    interface Request<Refs extends ReqRef = ReqRefDefaults> {
        /** The id its response's X-Request-Id gives and every log line about it names (see requestIdOf). */
        readonly requestId: string;
    }
}

/**
 * The shape of a request id, and of one a trusted proxy may give: nginx's `$request_id` (32 hex digits), a
 * UUID, Heroku's or Kong's ids fit; no space or line break reaches a log line.
 */
export const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * An id of the service's own: `req_` and 18 random base62 characters (107 bits), unique across instances and
 * restarts. Random, not a counter: ids a client sees must not tell how many requests the service answers.
 */
export function newRequestId(): string {

    return `req_${randomBase62(18)}`;
}

/**
 * A request's id: the X-Request-Id a trusted proxy (TRUSTED_PROXIES, the socket's peer) sent when it has the
 * shape of one, else a new one. A client cannot choose its own: it could pass itself off as another request.
 */
export function requestIdOf(request: Request, trusted: TrustedProxies): string {

    // Node joins a header sent twice with ", ", which no id matches.
    const given: unknown = request.headers['x-request-id'];
    if (typeof given === 'string' && !trusted.none && requestIdPattern.test(given)) {
        const peer = parseIpAddress(request.info.remoteAddress ?? '');
        if (peer && trusted.includes(peer)) {
            return given;
        }
    }

    return newRequestId();
}

/**
 * Gives every request its id as it arrives (`request.requestId`), and puts it in X-Request-Id on Node's
 * response itself: whatever hapi then writes carries it (a success, an error, a page, the stream's headers,
 * an answer an extension put in another's place). A decoration applied to each request, not an extension:
 * no lifecycle step of its own.
 */
export function decorateRequestId(server: Server, trusted: TrustedProxies): void {

    server.decorate('request', 'requestId', (request: Request) => {

        const id = requestIdOf(request, trusted);
        request.raw.res.setHeader('x-request-id', id);
        return id;
    }, { apply: true });
}
