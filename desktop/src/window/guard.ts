import Crypto from 'crypto';

import type { Request, ResponseToolkit, Server } from '@hapi/hapi';

/*
 * Only the person who launched the window drives it: another local user can reach 127.0.0.1 too, and any web page
 * can make the browser send requests there. The launch URL carries a secret once, exchanged for a session cookie
 * (HttpOnly, SameSite=Strict) that every request must bring; Host must name this server's own address (a page of
 * another site whose name was rebound to 127.0.0.1 sends its own name); a request that changes something must come
 * from this origin, as JSON (or the multipart form of a message), which no cross-site form or simple request can send.
 */

export const sessionCookie = 'family_records_window';

/** The headers of every answer (named as hapi keeps them): nothing framed, cached or loaded from elsewhere. */
const securityHeaders: Record<string, string> = {
    'content-security-policy': "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store'
};

/** A fresh 256-bit secret, URL-safe. */
export function newSecret(): string {

    return Crypto.randomBytes(32).toString('base64url');
}

/** Compares in constant time, whatever the lengths (both are hashed first). */
export function sameSecret(given: unknown, expected: string): boolean {

    if (typeof given !== 'string') {
        return false;
    }

    const digest = (value: string) => Crypto.createHash('sha256').update(value).digest();
    return Crypto.timingSafeEqual(digest(given), digest(expected));
}

function refuse(h: ResponseToolkit, status: number, error: string, message: string) {

    return h.response({ error, message }).code(status).takeover();
}

function isJson(contentType: string) {

    return /^application\/json\s*(;|$)/i.test(contentType);
}

function isMultipart(contentType: string) {

    return /^multipart\/form-data\s*;/i.test(contentType);
}

/**
 * Guards `server`, which listens on 127.0.0.1 (the port it got). `launchSecret` is taken once: `/?launch=<secret>` sets the
 * session cookie and redirects to `/`; from then on the secret opens nothing (it was on a command line).
 * `multipartRoutes` are the route paths that may take multipart/form-data.
 */
export function guardWindowServer(server: Server, launchSecret: string, multipartRoutes: string[]) {

    const origin = () => `http://127.0.0.1:${server.info.port}`;
    const session = newSecret();
    let launchTaken = false;

    server.state(sessionCookie, { isHttpOnly: true, isSameSite: 'Strict', isSecure: false, path: '/', encoding: 'none', ignoreErrors: true, clearInvalid: false, strictHeader: true });

    server.ext('onRequest', (request, h) => {

        if (`http://${request.headers.host}` !== origin()) {
            return refuse(h, 421, 'wrong_host', `This window answers only at ${origin()}.`);
        }

        return h.continue;
    });

    server.ext('onPreAuth', (request, h) => {

        if (request.path === '/' && request.query.launch !== undefined) {
            if (launchTaken || !sameSecret(request.query.launch, launchSecret)) {
                return refuse(h, 403, 'wrong_launch_secret', 'This launch link is not valid (it opens the window once). Start the window again.');
            }

            launchTaken = true;
            return h.redirect('/').state(sessionCookie, session).takeover();
        }

        if (!sameSecret(request.state?.[sessionCookie], session)) {
            return refuse(h, 401, 'no_session', 'Open this window from the Family Records desktop client.');
        }

        if (request.method !== 'get' && request.method !== 'head') {
            return checkWrite(request, h, origin(), multipartRoutes);
        }

        return h.continue;
    });

    server.ext('onPreResponse', (request, h) => {

        const response = request.response;
        const headers = 'isBoom' in response && response.isBoom ? response.output.headers : (response as { headers: Record<string, string> }).headers;
        for (const [name, value] of Object.entries(securityHeaders)) {
            // A route may set a stricter one of its own (a downloaded file's sandbox).
            headers[name] ??= value;
        }

        return h.continue;
    });
}

function checkWrite(request: Request, h: ResponseToolkit, origin: string, multipartRoutes: string[]) {

    if (request.headers.origin !== origin) {
        return refuse(h, 403, 'wrong_origin', 'A change must come from this window.');
    }

    const contentType = String(request.headers['content-type'] ?? '');
    if (!isJson(contentType) && !(isMultipart(contentType) && multipartRoutes.includes(request.route.path))) {
        return refuse(h, 415, 'unsupported_media_type', 'Send JSON.');
    }

    return h.continue;
}
