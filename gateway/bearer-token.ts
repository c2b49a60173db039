import type { Request } from '@hapi/hapi';
import type Boom from '@hapi/boom';

/** How many Authorization headers the request has: Node keeps only the first in `headers`. */
function authorizationHeaders(request: Request): number {

    const raw = request.raw.req.rawHeaders ?? [];           // none under server.inject, which sends one of each
    let count = 0;
    for (let i = 0; i < raw.length; i += 2) {
        if (raw[i].length === 13 && raw[i].toLowerCase() === 'authorization') {
            count += 1;
        }
    }

    return count;
}

/**
 * The token of `Authorization: Bearer <token>`, or the 401 `refusal` makes saying what is wrong with the header
 * instead; `credential` names the token in its words ("API key").
 */
export function bearerToken(request: Request, credential: string, refusal: (message: string) => Boom.Boom): string | Boom.Boom {

    // Authorization is no list (RFC 9110 §5.3): of two, a proxy in front may have read the other one.
    if (authorizationHeaders(request) > 1) {
        return refusal(`More than one Authorization header: send one, Authorization: Bearer <${credential}>.`);
    }

    const header = String(request.headers.authorization ?? '');
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (match) {
        return match[1];
    }

    const scheme = /^\s*(\S+)/.exec(header)?.[1];
    if (scheme === undefined || (scheme.toLowerCase() === 'bearer' && header.trim().length === scheme.length)) {
        return refusal(`Missing ${credential}: send Authorization: Bearer <${credential}>.`);
    }

    return refusal(scheme.toLowerCase() === 'bearer'
        ? `Malformed Authorization header: send Authorization: Bearer <${credential}>, the ${credential.replace(/^API /, '')} after one space.`
        : `Authorization is not of the Bearer scheme: send Authorization: Bearer <${credential}>.`);
}
